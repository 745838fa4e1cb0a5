import type {
  AuditPage,
  AuthTokenResult,
  ConsoleOrganization,
  ConsoleOrganizationList,
  ConsoleStaffList,
  ConsoleStaffUser,
} from '@entry/domain';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, mailOutbox, staffUsers } from '../src/db/schema.ts';
import {
  call,
  databaseLabel,
  passSecondFactor,
  signInAdmin,
  startTestServer,
  type TestServer,
} from './helpers/server.ts';
import { insertStaffUser } from './helpers/staff-users.ts';
import { enrolStaffTotp } from './testing.ts';

const base = '/api/console/v1';
const managerSecret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const password = 'a long enough password 1';
const svgLogo = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10"/></svg>');

describe(`the operator console's organizations and staff (${databaseLabel})`, () => {
  let server: TestServer;
  let admin: string;
  let manager: string;
  let managerId: number;
  let plainCustomer: string;
  let otherOrganization: ConsoleOrganization;
  let otherOrganizationUser: ConsoleStaffUser;
  let colleague: ConsoleStaffUser;

  const consoleCall = <T = Record<string, unknown>>(
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ) => call<T>(server.baseUrl, method, `${base}${path}`, { token, ...(body === undefined ? {} : { body }) });

  async function signInCustomer(username: string, secret?: string): Promise<string> {
    const response = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username, password },
    });
    if (response.status !== 200) throw new Error(`the sign-in of ${username} answered ${response.status}`);
    if (secret === undefined) return response.body.accessToken;
    return (await passSecondFactor(server, 'customer', response.body.accessToken, secret)).accessToken;
  }

  const auditRows = (event: string) => server.ctx.db.select().from(auditLog).where(eq(auditLog.event, event));

  beforeAll(async () => {
    server = await startTestServer({
      env: { RATE_LIMIT_FAILURES: '100000', ACCESS_TOKEN_MINUTES: '60', STAFF_IDLE_MINUTES: '60' },
    });
    admin = (await signInAdmin(server)).accessToken;

    const managerRow = await insertStaffUser(server, 'customer', 'manager.one', password);
    managerId = managerRow.id;
    await server.ctx.db.update(staffUsers).set({ manager: true }).where(eq(staffUsers.id, managerId));
    await enrolStaffTotp(
      server.ctx.db,
      { config: server.config, pepper: server.ctx.pepper },
      managerId,
      managerSecret,
    );
    manager = await signInCustomer('manager.one', managerSecret);
    await insertStaffUser(server, 'customer', 'plain.one', password);
    plainCustomer = await signInCustomer('plain.one');

    const created = await consoleCall<ConsoleOrganization>('POST', '/organizations', admin, {
      subdomain: 'otherorg',
      name: 'Other Organization',
    });
    expect(created.status).toBe(200);
    otherOrganization = created.body;
    const invited = await consoleCall<{ user: ConsoleStaffUser }>('POST', '/staff', admin, {
      kind: 'customer',
      customerId: otherOrganization.customerId,
      username: 'other.user',
      email: 'other.user@example.com',
    });
    expect(invited.status).toBe(200);
    otherOrganizationUser = invited.body.user;
    const colleagueInvite = await consoleCall<{ user: ConsoleStaffUser }>('POST', '/staff', admin, {
      kind: 'customer',
      customerId: 1001,
      username: 'colleague.one',
      email: 'colleague.one@example.com',
    });
    colleague = colleagueInvite.body.user;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists the organizations with their counts, policies and consumer portal address', async () => {
    const listed = await consoleCall<ConsoleOrganizationList>('GET', '/organizations?search=OTHER', admin);
    expect(listed.status).toBe(200);
    expect(listed.body.organizations).toEqual([
      expect.objectContaining({
        customerId: otherOrganization.customerId,
        subdomain: 'otherorg',
        staffCount: 1,
        consumerCount: 0,
        staffSecondFactor: 'optional',
        consumerMfaRequired: true,
        consumerPortalUrl: expect.stringMatching(/^https?:\/\/otherorg\.[^/]+\/c\/$/),
      }),
    ]);
    const all = await consoleCall<ConsoleOrganizationList>('GET', '/organizations', admin);
    const demo = all.body.organizations.find((organization) => organization.customerId === 1001);
    expect(demo?.consumerCount).toBeGreaterThan(0);
  });

  it('changes an organization as the CLI does, and audits the change with the admin', async () => {
    const changed = await consoleCall<ConsoleOrganization>(
      'PATCH',
      `/organizations/${otherOrganization.customerId}`,
      admin,
      {
        name: 'Other Organization Inc.',
        phone: '(800) 555-0199',
        logoBase64: svgLogo.toString('base64'),
        consumerMfaRequired: false,
        staffSecondFactor: 'required',
        maxPasswordAgeDays: 90,
      },
    );
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      name: 'Other Organization Inc.',
      contact: { phone: '(800) 555-0199' },
      hasLogo: true,
      consumerMfaRequired: false,
      staffSecondFactor: 'required',
      maxPasswordAgeDays: 90,
    });
    const [row] = (await auditRows('console.tenant.update')).filter(
      (audit) => audit.tenantId === otherOrganization.customerId,
    );
    expect(row?.actor).toMatch(/^admin:\d+$/);
    expect(row?.detail).toMatchObject({ changed: expect.arrayContaining(['name', 'contact', 'logo']) });

    const badLogo = await consoleCall('PATCH', `/organizations/${otherOrganization.customerId}`, admin, {
      logoBase64: Buffer.from('GIF89a').toString('base64'),
    });
    expect(badLogo.status).toBe(400);
    const badPhone = await consoleCall('PATCH', `/organizations/${otherOrganization.customerId}`, admin, {
      phone: 'call us',
    });
    expect(badPhone.status).toBe(400);
    expect(badPhone.body).toMatchObject({ errorCode: 'InvalidValue' });
  });

  it('invites a user with a mailed one-use link, lists the user as invited, and mails it again', async () => {
    await server.ctx.mail.idle();
    const mail = server.mailer.sent.filter((sent) => sent.to === 'colleague.one@example.com').at(-1);
    expect(mail?.text).toMatch(/\/d\/reset-password\?token=/);
    expect(colleague).toMatchObject({
      kind: 'customer',
      customerId: 1001,
      invitationPending: true,
      disabled: false,
      lastSignInAt: null,
    });
    const resent = await consoleCall('POST', `/staff/${colleague.id}/resend-invitation`, admin);
    expect(resent.status).toBe(200);
    await server.ctx.mail.idle();
    const mails = server.mailer.sent.filter((sent) => sent.to === 'colleague.one@example.com');
    expect(mails).toHaveLength(2);
    const [created] = (await auditRows('console.customer.create')).filter(
      (row) => (row.detail as { userId?: number }).userId === colleague.id,
    );
    expect(created?.actor).toMatch(/^admin:/);

    const signedIn = await consoleCall('POST', `/staff/${managerId}/resend-invitation`, admin);
    expect(signedIn.status).toBe(409);
  });

  it('lists a user who was given a password when made, as the demo users were, as signed up rather than invited', async () => {
    const listed = await consoleCall<ConsoleStaffList>(
      'GET',
      `/staff?search=${encodeURIComponent(server.demo.customer.username)}`,
      admin,
    );
    expect(listed.body.users.map((user) => [user.username, user.invitationPending])).toEqual([
      [server.demo.customer.username, false],
    ]);
    const resent = await consoleCall('POST', `/staff/${listed.body.users[0]?.id}/resend-invitation`, admin);
    expect(resent.status).toBe(409);
  });

  it('answers 400 for an invitation with a bad address or username, and 409 for a taken username', async () => {
    const badEmail = await consoleCall('POST', '/staff', admin, {
      kind: 'customer',
      customerId: 1001,
      username: 'someone.new',
      email: 'not an address',
    });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body).toMatchObject({ errorCode: 'InvalidValue', errors: [{ field: 'email' }] });
    const badUsername = await consoleCall('POST', '/staff', admin, {
      kind: 'customer',
      customerId: 1001,
      username: '!!',
      email: 'someone@example.com',
    });
    expect(badUsername.status).toBe(400);
    const taken = await consoleCall('POST', '/staff', admin, {
      kind: 'customer',
      customerId: 1001,
      username: 'colleague.one',
      email: 'someone@example.com',
    });
    expect(taken.status).toBe(409);
    const adminManager = await consoleCall('POST', '/staff', admin, {
      kind: 'admin',
      username: 'admin.manager',
      email: 'admin.manager@example.com',
      manager: true,
    });
    expect(adminManager.status).toBe(400);
  });

  it('lets a manager unlock, disable and enable a colleague, audited with the manager', async () => {
    const lockedUntil = new Date(server.clock.now().getTime() + 3_600_000);
    await server.ctx.db.update(staffUsers).set({ lockedUntil }).where(eq(staffUsers.id, colleague.id));
    const listed = await consoleCall<ConsoleStaffList>('GET', '/staff?search=colleague', manager);
    expect(listed.body.users.map((user) => [user.username, user.lockedUntil])).toEqual([
      ['colleague.one', lockedUntil.toISOString()],
    ]);
    const unlocked = await consoleCall<ConsoleStaffUser>('POST', `/staff/${colleague.id}/unlock`, manager);
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.lockedUntil).toBeNull();
    const disabled = await consoleCall<ConsoleStaffUser>('POST', `/staff/${colleague.id}/disable`, manager);
    expect(disabled.body.disabled).toBe(true);
    const enabled = await consoleCall<ConsoleStaffUser>('POST', `/staff/${colleague.id}/enable`, manager);
    expect(enabled.body.disabled).toBe(false);
    for (const action of ['unlock', 'disable', 'enable']) {
      const rows = await auditRows(`console.customer.${action}`);
      expect(rows.map((row) => row.actor)).toContain(`customer:${managerId}`);
    }
  });

  it('lets a manager reset the second factors of a colleague, who is mailed', async () => {
    const reset = await consoleCall('POST', `/staff/${colleague.id}/reset-second-factors`, manager);
    expect(reset.status).toBe(200);
    // Queued as the CLI queues it; the outbox sends it on its next round.
    const queued = await server.ctx.db
      .select({ subject: mailOutbox.subject })
      .from(mailOutbox)
      .where(eq(mailOutbox.toAddress, 'colleague.one@example.com'));
    expect(queued.map((mail) => mail.subject)).toContain('Your second factors were reset');
  });

  it("shows a manager only their own organization's customer users", async () => {
    const listed = await consoleCall<ConsoleStaffList>('GET', '/staff', manager);
    expect(listed.status).toBe(200);
    expect(listed.body.users.length).toBeGreaterThan(0);
    expect(listed.body.users.every((user) => user.kind === 'customer' && user.customerId === 1001)).toBe(
      true,
    );
    const admins = await consoleCall<ConsoleStaffList>('GET', '/staff?kind=admin', admin);
    expect(admins.body.users.length).toBeGreaterThan(0);
  });

  describe('refuses every call across organizations and roles', () => {
    const adminUserId = async () => {
      const [row] = await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.kind, 'admin'));
      if (row === undefined) throw new Error('no admin');
      return row.id;
    };
    const staffActions = ['disable', 'enable', 'unlock', 'reset-second-factors', 'resend-invitation'];

    it("answers a manager 404 for another organization's users and for admins", async () => {
      const adminId = await adminUserId();
      for (const userId of [otherOrganizationUser.id, adminId]) {
        for (const action of staffActions) {
          const response = await consoleCall('POST', `/staff/${userId}/${action}`, manager);
          expect([action, response.status]).toEqual([action, 404]);
        }
      }
      const otherList = await consoleCall(
        'GET',
        `/staff?customerId=${otherOrganization.customerId}`,
        manager,
      );
      expect(otherList.status).toBe(404);
      const otherInvite = await consoleCall('POST', '/staff', manager, {
        kind: 'customer',
        customerId: otherOrganization.customerId,
        username: 'sneaky.one',
        email: 'sneaky@example.com',
      });
      expect(otherInvite.status).toBe(404);
    });

    it('answers a manager 403 for the admin-only calls', async () => {
      const calls: [string, string, unknown?][] = [
        ['GET', '/organizations'],
        ['POST', '/organizations', { subdomain: 'managerorg', name: 'Nope' }],
        ['PATCH', '/organizations/1001', { name: 'Renamed' }],
        ['PATCH', `/organizations/${otherOrganization.customerId}`, { name: 'Renamed' }],
        ['PATCH', `/staff/${colleague.id}/manager`, { manager: true }],
        ['PATCH', `/staff/${otherOrganizationUser.id}/manager`, { manager: true }],
        ['PATCH', `/staff/${await adminUserId()}/manager`, { manager: false }],
        ['GET', '/staff?kind=admin'],
        ['POST', '/staff', { kind: 'admin', username: 'new.admin', email: 'new.admin@example.com' }],
        [
          'POST',
          '/staff',
          { kind: 'customer', username: 'new.mgr', email: 'new.mgr@example.com', manager: true },
        ],
      ];
      for (const [method, path, body] of calls) {
        const response = await consoleCall(method, path, manager, body);
        expect([method, path, response.status]).toEqual([method, path, 403]);
      }
    });

    it('answers a manager 403 for the consumers and mailings of any organization, and 404 for its audit rows', async () => {
      const csvUpload = (path: string) =>
        call(server.baseUrl, 'POST', `${base}${path}`, {
          token: manager,
          rawBody: 'consumerId\n',
          headers: { 'content-type': 'text/csv' },
        });
      for (const customerId of [1001, otherOrganization.customerId]) {
        const refused = [
          await consoleCall('GET', `/organizations/${customerId}/mailings`, manager),
          await csvUpload(`/organizations/${customerId}/consumers`),
          await csvUpload(`/organizations/${customerId}/mailings`),
          await consoleCall('POST', '/mailings/any-mailing/revoke', manager),
        ];
        expect(refused.map((response) => [response.status, response.body])).toEqual(
          refused.map(() => [403, expect.objectContaining({ errorCode: 'NotPermitted' })]),
        );
      }
      const otherAudit = [
        await consoleCall('GET', `/audit?customerId=${otherOrganization.customerId}`, manager),
        await consoleCall(
          'GET',
          `/audit/export?format=csv&customerId=${otherOrganization.customerId}`,
          manager,
        ),
      ];
      expect(otherAudit.map((response) => response.status)).toEqual([404, 404]);
    });

    it("shows a manager only their own organization's audit rows, never another's or an admin's", async () => {
      const event = 'test.cross-organization';
      for (const tenantId of [1001, otherOrganization.customerId, null]) {
        await server.ctx.audit.record({ event, outcome: 'success', actor: 'admin:1', tenantId });
      }
      const customerIdsOf = async (token: string, query: string) => {
        const page = await consoleCall<AuditPage>('GET', `/audit?event=${event}${query}`, token);
        expect(page.status).toBe(200);
        return page.body.rows.map((row) => row.customerId);
      };
      expect(await customerIdsOf(manager, '')).toEqual([1001]);
      expect(await customerIdsOf(manager, '&customerId=1001')).toEqual([1001]);
      expect(await customerIdsOf(admin, '')).toEqual([null, otherOrganization.customerId, 1001]);

      const exported = await fetch(`${server.baseUrl}${base}/audit/export?format=jsonl&event=${event}`, {
        headers: { authorization: `Bearer ${manager}` },
      });
      expect(exported.status).toBe(200);
      const lines = (await exported.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { tenantId: number | null });
      expect(lines.map((line) => line.tenantId)).toEqual([1001]);
      const [record] = (await auditRows('operator.audit.export')).filter(
        (row) => (row.detail as { event?: string }).event === event,
      );
      expect(record).toMatchObject({ actor: `customer:${managerId}`, tenantId: 1001 });
    });

    it('answers a customer user who is not a manager, and a launched session, 403 on every call', async () => {
      const launched = await call<{ token: string }>(
        server.baseUrl,
        'POST',
        '/api/auth/v1/launch/customer/1001',
        {
          token: admin,
        },
      );
      const exchanged = await call<AuthTokenResult>(
        server.baseUrl,
        'POST',
        '/api/auth/v1/customer/sign-in/token',
        {
          body: { token: launched.body.token },
        },
      );
      for (const token of [plainCustomer, exchanged.body.accessToken]) {
        const calls: [string, string, unknown?][] = [
          ['GET', '/organizations'],
          ['GET', '/staff'],
          ['POST', '/staff', { kind: 'customer', username: 'x.one', email: 'x.one@example.com' }],
          ...staffActions.map((action): [string, string] => ['POST', `/staff/${colleague.id}/${action}`]),
          ['GET', '/audit'],
          ['GET', '/audit/export?format=csv'],
          ['GET', '/organizations/1001/mailings'],
        ];
        for (const [method, path, body] of calls) {
          const response = await consoleCall(method, path, token, body);
          expect([method, path, response.status]).toEqual([method, path, 403]);
        }
      }
    });

    it('answers 401 without a session', async () => {
      const response = await call(server.baseUrl, 'GET', `${base}/staff`);
      expect(response.status).toBe(401);
    });
  });

  it("speaks of the page's fields, not the CLI's flags, when an invitation or a change lacks a detail", async () => {
    const refusals = [
      await consoleCall('POST', '/staff', admin, {
        kind: 'customer',
        username: 'no.organization',
        email: 'no.organization@example.com',
      }),
      await consoleCall('POST', '/staff', admin, {
        kind: 'admin',
        customerId: 1001,
        username: 'admin.with.organization',
        email: 'admin.with.organization@example.com',
      }),
      await consoleCall('PATCH', '/organizations/1001', admin, {}),
    ];
    expect(refusals.map((response) => [response.status, response.body])).toEqual([
      [
        400,
        expect.objectContaining({
          message: 'A customer user belongs to an organization: enter its customer id.',
          errors: [expect.objectContaining({ field: 'customerId' })],
        }),
      ],
      [
        400,
        expect.objectContaining({
          message: 'An admin belongs to no organization: leave the customer id empty.',
          errors: [expect.objectContaining({ field: 'customerId' })],
        }),
      ],
      [
        400,
        expect.objectContaining({
          message: "Change at least one of the organization's details before saving.",
        }),
      ],
    ]);
  });

  it('refuses a change when the second factor is older than 15 minutes, and lets the user step up', async () => {
    server.clock.advance(16 * 60_000);
    expect((await consoleCall('GET', '/staff', manager)).status).toBe(200);
    const stale = await consoleCall('POST', `/staff/${colleague.id}/unlock`, manager);
    expect(stale.status).toBe(403);
    expect(stale.body).toMatchObject({ errorCode: 'NotPermitted', stepUpRequired: true });
    const staleAdmin = await consoleCall('POST', '/organizations', admin, {
      subdomain: 'lateorg',
      name: 'Late',
    });
    expect(staleAdmin.status).toBe(403);
    expect(staleAdmin.body).toMatchObject({ stepUpRequired: true });
    const none = await server.ctx.db
      .select()
      .from(auditLog)
      .where(like(auditLog.event, 'console.tenant.create'));
    expect(none.some((row) => (row.detail as { subdomain?: string }).subdomain === 'lateorg')).toBe(false);

    const stepped = await passSecondFactor(server, 'customer', manager, managerSecret);
    const fresh = await consoleCall('POST', `/staff/${colleague.id}/unlock`, stepped.accessToken);
    expect(fresh.status).toBe(200);
  });

  it('gives and takes the manager role (admins only), as `user update --manager` does', async () => {
    const given = await consoleCall<ConsoleStaffUser>('PATCH', `/staff/${colleague.id}/manager`, admin, {
      manager: true,
    });
    expect([given.status, given.body.manager]).toEqual([403, undefined]);
    expect(given.body).toMatchObject({ stepUpRequired: true });
    const fresh = (await signInAdmin(server)).accessToken;
    const granted = await consoleCall<ConsoleStaffUser>('PATCH', `/staff/${colleague.id}/manager`, fresh, {
      manager: true,
    });
    expect(granted.body.manager).toBe(true);
    const rows = await server.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.event, 'console.customer.manager')));
    expect(rows.at(-1)?.detail).toMatchObject({ userId: colleague.id, manager: true });
  });

  it('tells the home page whom the console serves', async () => {
    const answers = await Promise.all(
      [admin, manager, plainCustomer].map(async (token) => (await consoleCall('GET', '/access', token)).body),
    );
    expect(answers).toEqual([
      { kind: 'admin', manager: false, console: true },
      { kind: 'customer', manager: true, console: true },
      { kind: 'customer', manager: false, console: false },
    ]);
  });

  it('describes every console call in the OpenAPI document', async () => {
    const response = await fetch(`${server.baseUrl}/api/docs/openapi.json`);
    const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
    const consolePaths = Object.keys(document.paths).filter((path) => path.startsWith(base));
    expect(consolePaths).toEqual(
      expect.arrayContaining([
        `${base}/organizations`,
        `${base}/organizations/{customerId}`,
        `${base}/staff`,
        `${base}/staff/{userId}/unlock`,
        `${base}/staff/{userId}/manager`,
      ]),
    );
    const descriptionOf = (path: string, method: string) =>
      (document.paths[`${base}${path}`]?.[method] as { description?: string } | undefined)?.description;
    expect(descriptionOf('/audit', 'get')).toMatch(/customer manager only their own organization/);
    expect(descriptionOf('/audit/export', 'get')).toMatch(/customer manager only their own organization/);
    expect(descriptionOf('/organizations/{customerId}/mailings', 'get')).toMatch(/^Admins only/);
    expect(descriptionOf('/organizations/{customerId}/consumers', 'post')).toMatch(/^Admins only/);
  });
});
