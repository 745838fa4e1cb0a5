import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipientHash } from '../src/services/mail.ts';
import { auditEvents } from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';
import { startSmtpServer } from './helpers/smtp.ts';

describe(`the audit rows of sent staff mail (${databaseLabel})`, () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer({ env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const sentTo = async (address: string) => {
    await server.ctx.mail.idle();
    const hash = recipientHash(server.ctx.pepper, address);
    return (await auditEvents(server, 'mail.sent')).filter((row) => row.detail.recipientHash === hash);
  };

  it("records a customer user's reset mail with its kind, opt-out and message id", async () => {
    const reset = await call(server.baseUrl, 'POST', '/api/auth/v1/customer/password/reset', {
      body: { username: server.demo.customer.username },
    });
    expect(reset.status).toBe(204);
    const mail = await smtp.waitForMail((received) => received.to.includes('customer@example.com'));
    const rows = await sentTo('customer@example.com');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ event: 'mail.sent', outcome: 'success', tenantId: 1001 });
    expect(rows[0]?.detail).toMatchObject({
      kind: 'staff-reset',
      language: 'en',
      messageId: mail.headers.get('message-id'),
      optOutLink: true,
      listUnsubscribe: true,
      disclosure: false,
    });
  });

  it("records an admin's reset mail without an opt-out: the provider's own admins belong to no tenant", async () => {
    const reset = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/reset', {
      body: { username: server.demo.admin.username },
    });
    expect(reset.status).toBe(204);
    const mail = await smtp.waitForMail((received) => !received.headers.has('list-unsubscribe'));
    const rows = await sentTo(mail.to[0] ?? '');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tenantId: null });
    expect(rows[0]?.detail).toMatchObject({
      kind: 'staff-reset',
      optOutLink: false,
      listUnsubscribe: false,
      disclosure: false,
    });
  });
});
