import type { AuthTokenResult, EmailSubscription } from '@entry/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipientHash } from '../src/services/mail.ts';
import { mailTexts } from '../src/services/mail-texts.ts';
import { cli } from './cli-helpers.ts';
import { auditEvents, createConsumer, createToken } from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';
import { type ReceivedMail, startSmtpServer } from './helpers/smtp.ts';

describe(`consumer MFA through a real SMTP server (${databaseLabel})`, () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer({ env: { SMTP_URL: smtp.url, RATE_LIMIT_FAILURES: '1000' } });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const codeOf = (mail: ReceivedMail) => /\b(\d{6})\b/.exec(mail.text)?.[1] ?? '';

  async function pendingSessionFor(email: string) {
    const consumer = await createConsumer(server, { email });
    const token = await createToken(server, consumer, 'PostalCode');
    const response = await call<{ authToken: AuthTokenResult }>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/consumer/sign-in/lookup',
      {
        body: {
          customerId: 1001,
          subdomain: 'sender',
          token: token.guid,
          postalCode: consumer.answers.postalCode,
        },
      },
    );
    expect(response.status).toBe(200);
    return response.body.authToken;
  }

  it('mails the code to the address on file; the code completes the sign-in', async () => {
    const email = 'mfa-smtp-one@example.com';
    const pending = await pendingSessionFor(email);
    const mail = await smtp.waitForMail((received) => received.to.includes(email));
    expect(mail.subject).toBe(mailTexts.en.codeSubject);
    const code = codeOf(mail);
    expect(code).toMatch(/^\d{6}$/);

    const full = await call<AuthTokenResult>(
      server.baseUrl,
      'POST',
      `/api/auth/v1/consumer/sign-in/mfa?mfaCode=${code}`,
      {
        token: pending.accessToken,
      },
    );
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ accessType: 'Consumer', hasRestrictedAccess: false });
  });

  it('carries List-Unsubscribe headers whose one-click address unsubscribes, and a visible opt-out link', async () => {
    const email = 'mfa-smtp-headers@example.com';
    await pendingSessionFor(email);
    const mail = await smtp.waitForMail((received) => received.to.includes(email));

    expect(mail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const oneClick =
      /^<(http:\/\/sender\.localhost:8080\/api\/v1\/communication\/email\/unsubscribe\?token=[^>]+)>$/.exec(
        mail.headers.get('list-unsubscribe') ?? '',
      )?.[1];
    expect(oneClick).toBeDefined();
    expect(mail.text).toMatch(/http:\/\/sender\.localhost:8080\/unsubscribe\?token=\S+/);

    const url = new URL(oneClick ?? '');
    const response = await call<EmailSubscription>(server.baseUrl, 'POST', `${url.pathname}${url.search}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: 'List-Unsubscribe=One-Click',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ emailAddress: email, unsubscribed: true });
  });

  it('a resent code arrives by mail and replaces the first', async () => {
    const email = 'mfa-smtp-resend@example.com';
    const pending = await pendingSessionFor(email);
    const first = await smtp.waitForMail((received) => received.to.includes(email));
    server.clock.advance(60_000);
    const resend = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/mfa/resend', {
      token: pending.accessToken,
    });
    expect(resend.status).toBe(204);
    const second = await smtp.waitForMail((received) => received.to.includes(email) && received !== first);
    const [firstCode, secondCode] = [codeOf(first), codeOf(second)];
    expect(secondCode).toMatch(/^\d{6}$/);
    if (firstCode !== secondCode) {
      const stale = await call(
        server.baseUrl,
        'POST',
        `/api/auth/v1/consumer/sign-in/mfa?mfaCode=${firstCode}`,
        {
          token: pending.accessToken,
        },
      );
      expect(stale.status).toBe(409);
    }
    const fresh = await call(
      server.baseUrl,
      'POST',
      `/api/auth/v1/consumer/sign-in/mfa?mfaCode=${secondCode}`,
      {
        token: pending.accessToken,
      },
    );
    expect(fresh.status).toBe(200);
  });

  it('leaves a mail.sent audit row for the mail the SMTP server took, and the audit export shows it', async () => {
    const email = 'mfa-smtp-evidence@example.com';
    await pendingSessionFor(email);
    const mail = await smtp.waitForMail((received) => received.to.includes(email));
    await server.ctx.mail.idle();

    const hash = recipientHash(server.ctx.pepper, email);
    const rows = (await auditEvents(server, 'mail.sent')).filter((row) => row.detail.recipientHash === hash);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tenantId: 1001, outcome: 'success', at: server.clock.now() });
    expect(rows[0]?.detail).toEqual({
      mailId: expect.any(Number),
      kind: 'consumer-code',
      language: 'en',
      recipientHash: hash,
      messageId: mail.headers.get('message-id'),
      optOutLink: true,
      listUnsubscribe: true,
      disclosure: false,
    });
    expect(mail.headers.get('message-id')).toMatch(/^<.+@.+>$/);
    expect(JSON.stringify(rows[0])).not.toContain(email);

    const from = new Date(server.clock.now().getTime() - 60_000).toISOString();
    const to = new Date(server.clock.now().getTime() + 60_000).toISOString();
    const run = await cli(server, 'audit', 'export', '--from', from, '--to', to, '--format', 'jsonl');
    expect(run.code).toBe(0);
    const exported = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; detail: Record<string, unknown> })
      .filter((row) => row.event === 'mail.sent' && row.detail.recipientHash === hash);
    expect(exported).toEqual([expect.objectContaining({ detail: rows[0]?.detail })]);
  });
});
