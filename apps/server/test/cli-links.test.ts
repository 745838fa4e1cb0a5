import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityTokens } from '../src/db/schema.ts';
import { cli, consumerHeader, csv, tempFile } from './cli-helpers.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const linkHeader =
  'consumerId,signInType,target,targetId,expiresAt,paymentAmount,schedulePaymentAmount,scheduleDownPayment,scheduleInterval';

type LinkRow = Record<
  'consumerId' | 'signInType' | 'token' | 'shortId' | 'link' | 'shortLink' | 'expiresAt',
  string
>;

describe(`operator CLI: letter links (${databaseLabel})`, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    const consumersFile = tempFile(
      'consumers.csv',
      csv(
        consumerHeader,
        'L-1,Lee One,lee1@example.com,1111,50001,1981-01-01',
        'L-2,Lee Two,lee2@example.com,2222,50002,1982-02-02',
        'L-3,Lee Three,lee3@example.com,3333,50003,1983-03-03',
      ),
    );
    const run = await cli(server, 'consumers', 'import', '--tenant', 'sender', '--file', consumersFile);
    expect(run.code).toBe(0);
  });
  afterAll(async () => {
    await server?.close();
  });

  const issue = async (content: string, mailing: string) => {
    const out = tempFile('links.csv').replace(/links\.csv$/, 'out.csv');
    const run = await cli(
      server,
      'links',
      'issue',
      '--tenant',
      'sender',
      '--file',
      tempFile('in.csv', content),
      '--out',
      out,
      '--mailing',
      mailing,
    );
    const rows = existsSync(out) ? (parse(readFileSync(out), { columns: true }) as LinkRow[]) : undefined;
    return { run, rows, out };
  };
  const readToken = (token: string) =>
    call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${encodeURIComponent(token)}`);

  it('issues a token per row and writes full and short links that resolve over HTTP', async () => {
    const { run, rows } = await issue(
      csv(
        linkHeader,
        'L-1,Direct,4,INV-77,2030-03-01,125.50,,,',
        'L-2,Last4Ssn,2,,2030-03-01T17:00:00-05:00,300,50,25,Monthly',
        'L-3,none,,,2030-03-01,,,,',
      ),
      'spring-2030',
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('Issued 3 links for mailing spring-2030');
    expect(rows).toHaveLength(3);
    const [direct, last4, none] = rows ?? [];

    expect(direct?.link).toBe(`http://sender.localhost:8080/${direct?.token}/4/INV-77`);
    expect(direct).toMatchObject({
      signInType: 'Direct',
      shortId: '',
      shortLink: '',
      expiresAt: '2030-03-02T00:00:00.000Z',
    });
    expect(last4?.link).toBe(`http://sender.localhost:8080/${last4?.token}/2`);
    expect(last4?.shortLink).toBe(`http://sender.localhost:8080/${last4?.shortId}`);
    expect(last4?.expiresAt).toBe('2030-03-01T22:00:00.000Z');
    expect(none?.link).toBe(`http://sender.localhost:8080/${none?.token}`);
    expect(none?.signInType).toBe('None');

    for (const row of rows ?? []) {
      const token = new URL(row.link).pathname.split('/')[1] ?? '';
      const byGuid = await readToken(token);
      expect(byGuid.status).toBe(200);
      expect(byGuid.body).toMatchObject({
        guid: row.token,
        consumerId: row.consumerId,
        customerId: server.demo.tenant.customerId,
        signInType: row.signInType,
        source: 'mailing',
        expiresAt: row.expiresAt,
      });
      if (row.shortId !== '') {
        const byShortId = await readToken(new URL(row.shortLink).pathname.slice(1));
        expect(byShortId.body).toMatchObject({ guid: row.token });
      }
    }
    const [stored] = await server.ctx.db
      .select()
      .from(identityTokens)
      .where(eq(identityTokens.guid, last4?.token ?? ''));
    expect(stored?.data).toEqual({
      paymentAmount: 300,
      schedulePaymentAmount: 50,
      scheduleDownPayment: 25,
      scheduleInterval: 'Monthly',
    });
  });

  it('revokes a mailing: its links answer 404 at once, other mailings keep working', async () => {
    const kept = await issue(csv(linkHeader, 'L-1,PostalCode,0,,2030-06-01,,,,'), 'summer-2030');
    const revoked = await issue(
      csv(linkHeader, 'L-2,Direct,0,,2030-06-01,,,,', 'L-3,DateOfBirth,,,2030-06-01,,,,'),
      'autumn-2030',
    );
    const tokens = revoked.rows?.map((row) => row.token) ?? [];
    for (const token of tokens) expect((await readToken(token)).status).toBe(200);

    const run = await cli(server, 'links', 'revoke', '--mailing', 'autumn-2030');
    expect(run).toMatchObject({ code: 0, stdout: 'Revoked 2 tokens of mailing autumn-2030.\n' });
    for (const token of tokens)
      expect(await readToken(token)).toMatchObject({ status: 404, body: { errorCode: 'ItemNotFound' } });
    expect((await readToken(kept.rows?.[0]?.token ?? '')).status).toBe(200);

    const again = await cli(server, 'links', 'revoke', '--mailing', 'autumn-2030');
    expect(again.stdout).toBe('Revoked 0 tokens of mailing autumn-2030.\n');
    const unknown = await cli(server, 'links', 'revoke', '--mailing', 'never-sent');
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^ItemNotFound: /) });
  });

  it.each([
    [
      'an unknown consumer',
      csv(linkHeader, 'L-1,Direct,,,2030-06-01,,,,', 'NOPE,Direct,,,2030-06-01,,,,'),
      'line 3, column 1 (consumerId)',
    ],
    ['an unknown sign-in type', csv(linkHeader, 'L-1,Sms,,,2030-06-01,,,,'), 'line 2, column 2 (signInType)'],
    [
      'a target code out of range',
      csv(linkHeader, 'L-1,Direct,8,,2030-06-01,,,,'),
      'line 2, column 3 (target)',
    ],
    [
      'a target id without a target',
      csv(linkHeader, 'L-1,Direct,,77,2030-06-01,,,,'),
      'line 2, column 4 (targetId)',
    ],
    ['an expiry in the past', csv(linkHeader, 'L-1,Direct,,,2020-01-01,,,,'), 'line 2, column 5 (expiresAt)'],
    [
      'an expiry without a time zone',
      csv(linkHeader, 'L-1,Direct,,,2030-06-01T10:00:00,,,,'),
      'line 2, column 5 (expiresAt)',
    ],
    [
      'a bad amount',
      csv(linkHeader, 'L-1,Direct,,,2030-06-01,12.3.4,,,'),
      'line 2, column 6 (paymentAmount)',
    ],
    ['a missing expiry column', csv('consumerId,signInType', 'L-1,Direct'), 'line 1'],
  ])(
    'refuses a file with %s: InvalidImportFile, no token issued, no output file',
    async (_case, content, location) => {
      const before = (await server.ctx.db.select().from(identityTokens)).length;
      const { run, rows } = await issue(content, 'refused-mailing');
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^InvalidImportFile: /);
      expect(run.stderr).toContain(`  ${location}`);
      expect(rows).toBeUndefined();
      expect((await server.ctx.db.select().from(identityTokens)).length).toBe(before);
    },
  );

  it('keeps a mailing name to one tenant', async () => {
    const tenant = await cli(
      server,
      'tenant',
      'create',
      '--subdomain',
      'other-sender',
      '--name',
      'Other Sender',
    );
    expect(tenant.code).toBe(0);
    const file = tempFile(
      'c.csv',
      csv(consumerHeader, 'L-1,Lee Elsewhere,lee@example.com,1111,50001,1981-01-01'),
    );
    expect((await cli(server, 'consumers', 'import', '--tenant', 'other-sender', '--file', file)).code).toBe(
      0,
    );
    const out = tempFile('out.csv');
    const run = await cli(
      server,
      'links',
      'issue',
      '--tenant',
      'other-sender',
      '--mailing',
      'spring-2030',
      '--out',
      out,
      '--file',
      tempFile('in.csv', csv(linkHeader, 'L-1,Direct,,,2030-06-01,,,,')),
    );
    expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(/^DuplicateValue: /) });
  });
});
