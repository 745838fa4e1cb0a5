import type { AuthTokenResult, ConsumerImportResult, MailingList } from '@entry/domain';
import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, consumers } from '../src/db/schema.ts';
import { consumerHeader, csv } from './cli-helpers.ts';
import { createTenant } from './consumer-fixtures.ts';
import {
  call,
  databaseLabel,
  passSecondFactor,
  signInAdmin,
  startTestServer,
  type TestServer,
} from './helpers/server.ts';

const linkHeader = 'consumerId,signInType,target,targetId,expiresAt';

describe(`console: consumers and mailings (${databaseLabel})`, () => {
  let server: TestServer;
  let admin: AuthTokenResult;
  let tenant: { id: number; subdomain: string };

  beforeAll(async () => {
    server = await startTestServer();
    admin = await signInAdmin(server);
    tenant = await createTenant(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  const upload = (path: string, content: string, token = admin.accessToken) =>
    call(server.baseUrl, 'POST', path, {
      token,
      rawBody: content,
      headers: { 'content-type': 'text/csv' },
    });
  const consumersOf = (tenantId: number) =>
    server.ctx.db.select().from(consumers).where(eq(consumers.tenantId, tenantId));
  const auditOf = (event: string) => server.ctx.db.select().from(auditLog).where(eq(auditLog.event, event));
  // The access token's subject is the admin as the audit trail names them.
  const adminActor = () => decodeJwt(admin.accessToken).sub;

  it('lists every problem of a consumers CSV with its line, and writes nothing', async () => {
    const response = await upload(
      `/api/console/v1/organizations/${tenant.id}/consumers`,
      csv(
        consumerHeader,
        'C-1,Ann One,ann@example.com,1111,50001,1981-01-01',
        'C-2,Bob Two,not-an-email,2222,50002,1982-02-02',
        'C-3,Cy Three,cy@example.com,33,50003,1983-03-03',
      ),
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      errorCode: 'InvalidImportFile',
      message: 'The file has 2 problems; nothing was written.',
      errors: [
        { field: 'line 3, column 3 (email)', message: expect.any(String) },
        { field: 'line 4, column 4 (last4Ssn)', message: expect.any(String) },
      ],
    });
    expect(await consumersOf(tenant.id)).toEqual([]);
    expect(await auditOf('operator.consumers.import')).toEqual([]);
  });

  it('imports a clean file and audits it with the admin and address', async () => {
    const response = await upload(
      `/api/console/v1/organizations/${tenant.id}/consumers`,
      csv(
        consumerHeader,
        'C-1,Ann One,ann@example.com,1111,50001,1981-01-01',
        'C-2,Bob Two,bob@example.com,2222,50002,1982-02-02',
      ),
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual<ConsumerImportResult>({ rows: 2, created: 2, updated: 0 });
    expect(await consumersOf(tenant.id)).toHaveLength(2);
    const [row] = await auditOf('operator.consumers.import');
    expect(row).toMatchObject({
      actor: adminActor(),
      tenantId: tenant.id,
      ip: '127.0.0.1',
      detail: { rows: 2, created: 2 },
    });
  });

  it('issues a mailing from CSV and answers the letter links; lists it with its counts; revokes it', async () => {
    const issued = await upload(
      `/api/console/v1/organizations/${tenant.id}/mailings?mailing=console-spring`,
      csv(linkHeader, 'C-1,Direct,4,INV-1,2030-03-01', 'C-2,Last4Ssn,,,2030-03-01'),
    );
    expect(issued.status).toBe(200);
    expect(issued.headers.get('content-type')).toContain('text/csv');
    const links = parse(String(issued.body), { columns: true }) as Record<string, string>[];
    expect(links).toHaveLength(2);
    expect(links[0]?.link).toBe(`http://${tenant.subdomain}.localhost:8080/${links[0]?.token}/4/INV-1`);
    const opened = await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${links[0]?.token}`);
    expect(opened.status).toBe(200);

    const listed = await call<MailingList>(
      server.baseUrl,
      'GET',
      `/api/console/v1/organizations/${tenant.id}/mailings`,
      { token: admin.accessToken },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.mailings).toEqual([
      expect.objectContaining({ mailing: 'console-spring', links: 2, liveLinks: 2, revokedLinks: 0 }),
    ]);

    const revoked = await call(server.baseUrl, 'POST', '/api/console/v1/mailings/console-spring/revoke', {
      token: admin.accessToken,
    });
    expect(revoked).toMatchObject({ status: 200, body: { mailing: 'console-spring', revoked: 2 } });
    const after = await call<MailingList>(
      server.baseUrl,
      'GET',
      `/api/console/v1/organizations/${tenant.id}/mailings`,
      { token: admin.accessToken },
    );
    expect(after.body.mailings[0]).toMatchObject({ links: 2, liveLinks: 0, revokedLinks: 2 });
    const gone = await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${links[0]?.token}`);
    expect(gone.status).not.toBe(200);

    expect((await auditOf('operator.links.issue'))[0]).toMatchObject({
      actor: adminActor(),
      tenantId: tenant.id,
      detail: { mailing: 'console-spring', issued: 2 },
    });
    expect((await auditOf('operator.links.revoke'))[0]).toMatchObject({
      actor: adminActor(),
      tenantId: tenant.id,
      outcome: 'revoked',
      detail: { mailing: 'console-spring', revoked: 2 },
    });
  });

  it('names the line of an unknown consumer in a mailing and issues nothing', async () => {
    const response = await upload(
      `/api/console/v1/organizations/${tenant.id}/mailings?mailing=console-bad`,
      csv(linkHeader, 'C-1,Direct,,,2030-03-01', 'C-404,Direct,,,2030-03-01'),
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      errorCode: 'InvalidImportFile',
      errors: [{ field: 'line 3, column 1 (consumerId)' }],
    });
    const listed = await call<MailingList>(
      server.baseUrl,
      'GET',
      `/api/console/v1/organizations/${tenant.id}/mailings`,
      { token: admin.accessToken },
    );
    expect(listed.body.mailings.map((mailing) => mailing.mailing)).toEqual(['console-spring']);
  });

  it('answers an unknown organization and an unknown mailing with 404', async () => {
    const unknownTenant = await upload('/api/console/v1/organizations/424242/consumers', csv(consumerHeader));
    expect(unknownTenant.status).toBe(404);
    const unknownMailing = await call(server.baseUrl, 'POST', '/api/console/v1/mailings/no-such/revoke', {
      token: admin.accessToken,
    });
    expect(unknownMailing.status).toBe(404);
  });

  it('needs a second factor used within 15 minutes for every change, and none to read', async () => {
    const other = await startTestServer();
    try {
      let stale = await signInAdmin(other);
      other.clock.advanceMinutes(17);
      const renewed = await call<AuthTokenResult>(other.baseUrl, 'POST', '/api/auth/v1/admin/refresh', {
        body: { refreshToken: stale.refreshToken },
      });
      stale = renewed.body;
      const changes = [
        [
          '/api/console/v1/organizations/1001/consumers',
          csv(consumerHeader, 'S-1,Sue,s@example.com,1111,50001,1980-01-01'),
        ],
        ['/api/console/v1/organizations/1001/mailings', csv(linkHeader, 'S-1,Direct,,,2030-01-01')],
      ] as const;
      for (const [path, content] of changes) {
        const refused = await call(other.baseUrl, 'POST', path, {
          token: stale.accessToken,
          rawBody: content,
          headers: { 'content-type': 'text/csv' },
        });
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ errorCode: 'NotPermitted', stepUpRequired: true });
      }
      const revoke = await call(other.baseUrl, 'POST', '/api/console/v1/mailings/anything/revoke', {
        token: stale.accessToken,
      });
      expect(revoke.body).toMatchObject({ stepUpRequired: true });
      const read = await call(other.baseUrl, 'GET', '/api/console/v1/organizations/1001/mailings', {
        token: stale.accessToken,
      });
      expect(read.status).toBe(200);

      const steppedUp = await passSecondFactor(
        other,
        'admin',
        stale.accessToken,
        other.demo.admin.totpSecret,
      );
      const accepted = await call(other.baseUrl, 'POST', changes[0][0], {
        token: steppedUp.accessToken,
        rawBody: changes[0][1],
        headers: { 'content-type': 'text/csv' },
      });
      expect(accepted.status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('refuses a customer user and a call without a session', async () => {
    const customer = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username: server.demo.customer.username, password: server.demo.customer.password },
    });
    expect(customer.status).toBe(200);
    const asCustomer = [
      () =>
        upload(
          `/api/console/v1/organizations/${tenant.id}/consumers`,
          csv(consumerHeader),
          customer.body.accessToken,
        ),
      () =>
        call(server.baseUrl, 'GET', '/api/console/v1/organizations/1001/mailings', {
          token: customer.body.accessToken,
        }),
      () =>
        call(server.baseUrl, 'GET', '/api/console/v1/audit', {
          token: customer.body.accessToken,
        }),
    ];
    for (const run of asCustomer) expect((await run()).status).toBe(403);
    const anonymous = await call(server.baseUrl, 'GET', '/api/console/v1/organizations/1001/mailings');
    expect(anonymous.status).toBe(401);
  });

  it('refuses a body that is not CSV and one over the limit', async () => {
    const json = await call(server.baseUrl, 'POST', `/api/console/v1/organizations/${tenant.id}/consumers`, {
      token: admin.accessToken,
      body: { consumerId: 'x' },
    });
    expect(json.status).toBe(400);
    const huge = await upload(
      `/api/console/v1/organizations/${tenant.id}/consumers`,
      `${consumerHeader}\n${'x'.repeat(11 * 1024 * 1024)}`,
    );
    expect(huge.status).toBe(413);
  });
});
