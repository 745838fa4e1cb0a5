import { eq } from 'drizzle-orm';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordResetTokens, staffUsers, tenants } from '../src/db/schema.ts';
import { signingKeyReloadMs } from '../src/services/keys.ts';
import { cli } from './cli-helpers.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const strongPassword = 'quartz meadow lantern violin 73';

describe(`operator CLI: tenants, users and keys (${databaseLabel})`, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const tenantCount = async () => (await server.ctx.db.select().from(tenants)).length;

  it('creates a tenant that the access call then finds, with its settings', async () => {
    const run = await cli(
      server,
      'tenant',
      'create',
      '--subdomain',
      'acme-recovery',
      '--name',
      'Acme Recovery',
      '--mfa-required',
      'false',
      '--max-password-age-days',
      '90',
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('Created tenant acme-recovery (customer id 1002)');

    const access = await call(server.baseUrl, 'GET', '/api/auth/v1/access/acme-recovery');
    expect(access.status).toBe(200);
    expect(access.body).toMatchObject({
      subdomain: 'acme-recovery',
      customerId: 1002,
      customerName: 'Acme Recovery',
    });

    const list = await cli(server, 'tenant', 'list', '--format', 'json');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toContainEqual(
      expect.objectContaining({ subdomain: 'acme-recovery', mfaRequired: false, maxPasswordAgeDays: 90 }),
    );
    const table = await cli(server, 'tenant', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/^customerId\s+subdomain/);
    expect(table.stdout).toMatch(/1001\s+sender\s+true/);
  });

  it.each([
    ['apps', 'ReservedValue'],
    ['api', 'ReservedValue'],
    ['www', 'ReservedValue'],
    ['myadmin', 'ReservedValue'],
    ['dashboard', 'ReservedValue'],
    ['Upper', 'InvalidValue'],
    ['ab', 'InvalidValue'],
    ['edge-', 'InvalidValue'],
    ['sender', 'DuplicateValue'],
  ])('refuses the subdomain %s with %s and creates nothing', async (subdomain, errorCode) => {
    const before = await tenantCount();
    const run = await cli(server, 'tenant', 'create', '--subdomain', subdomain, '--name', 'Someone');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${errorCode}: `));
    expect(await tenantCount()).toBe(before);
  });

  it.each([
    [['tenant', 'create', '--name', 'No Subdomain'], '--subdomain is required.'],
    [
      ['tenant', 'create', '--subdomain', 'abc', '--name', 'x', '--colour', 'red'],
      "Unknown option '--colour'",
    ],
    [
      ['tenant', 'create', '--subdomain', 'abcd', '--name', 'x', '--mfa-required', 'maybe'],
      '--mfa-required must be one of: true, false.',
    ],
    [['tenant', 'remove'], 'Unknown command "tenant remove"'],
    [['tenants'], 'Unknown command "tenants"'],
    [['user'], '"user" needs a command: create, update, disable, enable, unlock, factors, factors-reset.'],
  ])('answers the mistyped command %j with exit code 2 and the usage', async (argv, message) => {
    const run = await cli(server, ...argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it.each([
    [['--kind', 'customer'], 'InvalidValue: A customer user belongs to a tenant: name it with --tenant.'],
    [
      ['--kind', 'admin', '--tenant', 'sender'],
      'InvalidValue: An admin user belongs to no tenant: leave out --tenant.',
    ],
  ])('refuses user create %j with exit code 1 and the reason, creating nobody', async (placement, reason) => {
    const users = async () => (await server.ctx.db.select().from(staffUsers)).length;
    const before = await users();
    const run = await cli(
      server,
      'user',
      'create',
      ...placement,
      '--username',
      'placed',
      '--email',
      'p@example.com',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`${reason}\n`);
    expect(await users()).toBe(before);
  });

  it('prints the help with exit code 0, for all commands and for one', async () => {
    const all = await cli(server, 'help');
    expect(all.code).toBe(0);
    for (const command of [
      'tenant create',
      'user unlock',
      'user factors',
      'user factors-reset',
      'keys rotate',
      'consumers import',
      'links issue',
      'links revoke',
      'audit export',
    ]) {
      expect(all.stdout).toContain(`npm run cli -- ${command}`);
    }
    const one = await cli(server, 'consumers', 'import', '--help');
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('--file <file.csv>');
    expect(one.stdout).toContain('[--format text|json]');
    const short = await cli(server, 'links', 'revoke', '-h');
    expect(short).toMatchObject({ code: 0, stderr: '' });
    expect(short.stdout).toContain('npm run cli -- links revoke --mailing <name>');
  });

  it('reports what a command did as one JSON object with --format json', async () => {
    const run = await cli(
      server,
      'tenant',
      'create',
      '--subdomain',
      'json-report',
      '--name',
      'Json Report Collections',
      '--format',
      'json',
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({
      customerId: expect.any(Number),
      subdomain: 'json-report',
      name: 'Json Report Collections',
      settings: { mfaRequired: true, maxPasswordAgeDays: null },
    });
    const revoked = await cli(server, 'links', 'revoke', '--mailing', 'no-such-mailing', '--format', 'json');
    expect(revoked.code).toBe(1);
    expect(revoked.stdout).toBe('');
    const mistyped = await cli(server, 'tenant', 'list', '--format', 'yaml');
    expect(mistyped.code).toBe(2);
  });

  describe.each(['admin', 'customer'] as const)('%s user lifecycle', (kind) => {
    const username = `ops-${kind}`;
    const tenantArgs = kind === 'customer' ? ['--tenant', 'sender'] : [];
    const signIn = (password: string) =>
      call(server.baseUrl, 'POST', `/api/auth/v1/${kind}/sign-in`, { body: { username, password } });

    it('creates the user with a one-use link to set the first password, printed once and stored only as a hash', async () => {
      const run = await cli(
        server,
        'user',
        'create',
        '--kind',
        kind,
        ...tenantArgs,
        '--username',
        username,
        '--email',
        `${kind}@example.com`,
      );
      expect(run.code).toBe(0);
      const portal = kind === 'admin' ? 'a' : 'd';
      const link = new RegExp(`http://apps\\.localhost:8080/${portal}/reset-password\\?token=([\\w-]+)`).exec(
        run.stdout,
      );
      expect(link).not.toBeNull();
      const resetToken = link?.[1] ?? '';
      expect(run.stdout.split(resetToken)).toHaveLength(2);

      const [user] = await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.username, username));
      const stored = await server.ctx.db
        .select()
        .from(passwordResetTokens)
        .where(eq(passwordResetTokens.userId, user?.id ?? 0));
      expect(stored.map((row) => row.hash)).not.toContain(resetToken);
      expect(user?.tenantId).toBe(kind === 'customer' ? 1001 : null);

      const setPassword = (newPassword: string) =>
        call(server.baseUrl, 'POST', `/api/auth/v1/${kind}/password/change`, {
          body: { resetToken, newPassword },
        });
      expect((await setPassword(strongPassword)).status).toBe(204);
      expect((await signIn(strongPassword)).status).toBe(200);
      const again = await setPassword('another strong password 91 zebra');
      expect(again.status).toBe(409);
    });

    it('refuses a second user of the same kind and name', async () => {
      const run = await cli(
        server,
        'user',
        'create',
        '--kind',
        kind,
        ...tenantArgs,
        '--username',
        username.toUpperCase(),
        '--email',
        'x@example.com',
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^DuplicateValue: /);
    });

    it('disables the user (sign-in refused, open sessions end) and enables again', async () => {
      const before = await signIn(strongPassword);
      const { refreshToken } = before.body as { refreshToken: string };
      expect((await cli(server, 'user', 'disable', '--kind', kind, '--username', username)).code).toBe(0);

      expect(await signIn(strongPassword)).toMatchObject({
        status: 401,
        body: { errorCode: 'InvalidSignIn' },
      });
      const refresh = await call(server.baseUrl, 'POST', `/api/auth/v1/${kind}/refresh`, {
        body: { refreshToken },
      });
      expect(refresh.status).toBe(401);

      expect((await cli(server, 'user', 'enable', '--kind', kind, '--username', username)).code).toBe(0);
      expect((await signIn(strongPassword)).status).toBe(200);
    });

    it('unlocks a user locked after failed sign-ins', async () => {
      let last = await signIn('wrong password for sure');
      for (let attempt = 1; attempt < 10; attempt += 1) last = await signIn('wrong password for sure');
      expect(await signIn(strongPassword)).toMatchObject({ status: 401, body: { errorCode: 'UserLocked' } });
      expect(last.status).toBe(401);

      const run = await cli(server, 'user', 'unlock', '--kind', kind, '--username', username);
      expect(run).toMatchObject({ code: 0, stdout: `${kind} user ${username} unlocked.\n` });
      expect((await signIn(strongPassword)).status).toBe(200);
    });
  });

  it('gives a customer user the manager role at creation, takes and gives it with user update, and never to an admin', async () => {
    const managerOf = async (username: string) =>
      (await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.username, username)))[0]?.manager;
    const created = await cli(
      server,
      'user',
      'create',
      '--kind',
      'customer',
      '--tenant',
      'sender',
      '--username',
      'ops-manager',
      '--email',
      'ops-manager@example.com',
      '--manager',
      'true',
    );
    expect(created.code).toBe(0);
    expect(await managerOf('ops-manager')).toBe(true);
    const taken = await cli(
      server,
      'user',
      'update',
      '--kind',
      'customer',
      '--username',
      'ops-manager',
      '--manager',
      'false',
    );
    expect(taken).toMatchObject({ code: 0, stdout: 'customer user ops-manager is no longer a manager.\n' });
    expect(await managerOf('ops-manager')).toBe(false);
    expect(
      (
        await cli(
          server,
          'user',
          'update',
          '--kind',
          'customer',
          '--username',
          'ops-manager',
          '--manager',
          'true',
        )
      ).code,
    ).toBe(0);
    expect(await managerOf('ops-manager')).toBe(true);
    const admin = await cli(
      server,
      'user',
      'update',
      '--kind',
      'admin',
      '--username',
      server.demo.admin.username,
      '--manager',
      'true',
    );
    expect(admin.code).toBe(1);
    expect(admin.stderr).toMatch(/^InvalidValue: Only a customer user can be a manager\./);
  });

  it.each([
    [
      ['user', 'create', '--kind', 'customer', '--username', 'nobody', '--email', 'n@example.com'],
      'InvalidValue',
    ],
    [
      [
        'user',
        'create',
        '--kind',
        'admin',
        '--tenant',
        'sender',
        '--username',
        'nobody',
        '--email',
        'n@example.com',
      ],
      'InvalidValue',
    ],
    [
      [
        'user',
        'create',
        '--kind',
        'customer',
        '--tenant',
        'nowhere',
        '--username',
        'nobody',
        '--email',
        'n@example.com',
      ],
      'ItemNotFound',
    ],
    [
      ['user', 'create', '--kind', 'admin', '--username', 'nobody', '--email', 'not-an-address'],
      'InvalidValue',
    ],
    [['user', 'unlock', '--kind', 'admin', '--username', 'nobody'], 'ItemNotFound'],
  ])('refuses %j with %s', async (argv, errorCode) => {
    const run = await cli(server, ...argv);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${errorCode}: `));
  });

  it('rotates the signing key: the old public key stays in the JWKS until its last token has expired', async () => {
    const jwks = async () =>
      (
        await call<{ keys: { kid: string }[] }>(server.baseUrl, 'GET', '/api/auth/.well-known/jwks.json')
      ).body.keys.map((key) => key.kid);
    const before = await jwks();
    expect(before).toHaveLength(1);

    server.clock.advanceMinutes(1);
    const run = await cli(server, 'keys', 'rotate');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `Running instances sign with it within ${signingKeyReloadMs / 1000} seconds, when they next read the key table; no restart is needed.`,
    );
    expect(run.stdout).not.toContain('Restart');
    const newKid = /New signing key (\S+)\./.exec(run.stdout)?.[1];
    expect(await jwks()).toEqual([newKid, ...before]);

    // The running server signs with the new key once it has read the key table again.
    server.clock.advance(signingKeyReloadMs);
    const signIn = await call<{ accessToken: string }>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password: server.demo.admin.password },
    });
    expect(decodeProtectedHeader(signIn.body.accessToken).kid).toBe(newKid);

    server.clock.advanceMinutes(server.config.accessTokenMinutes - 1);
    expect(await jwks()).toEqual([newKid, ...before]);
    server.clock.advanceMinutes(3);
    expect(await jwks()).toEqual([newKid]);
  });
});
