import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox } from '../src/db/schema.ts';
import { resetTokenLifetimeMs } from '../src/services/staff-mail.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';
import { startSmtpServer } from './helpers/smtp.ts';

const newPassword = 'juniper canyon saddle lantern 31';

describe(`password reset by mail through a real SMTP server (${databaseLabel})`, () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'entry@example.com' } });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const requestReset = (kind: string, username: string) =>
    call(server.baseUrl, 'POST', `/api/auth/v1/${kind}/password/reset`, { body: { username } });
  const linkIn = (text: string, portal: string) => {
    const match = new RegExp(`http://apps\\.localhost:8080/${portal}/reset-password\\?token=(\\S+)`).exec(
      text,
    );
    if (match?.[1] === undefined) throw new Error(`no reset link in: ${text}`);
    return decodeURIComponent(match[1]);
  };
  const changeWithToken = (kind: string, resetToken: string, password = newPassword) =>
    call(server.baseUrl, 'POST', `/api/auth/v1/${kind}/password/change`, {
      body: { resetToken, newPassword: password },
    });

  it('mails a customer a one-use link to /d/reset-password valid 30 minutes, with the opt-out headers and link', async () => {
    const response = await requestReset('customer', server.demo.customer.username);
    expect(response.status).toBe(204);
    const mail = await smtp.waitForMail((m) => m.to.includes('customer@example.com'));
    const token = linkIn(mail.text, 'd');
    expect(mail.headers.get('list-unsubscribe')).toMatch(
      /^<http:\/\/sender\.localhost:8080\/api\/v1\/communication\/email\/unsubscribe\?token=.+>$/,
    );
    expect(mail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.text).toMatch(/http:\/\/sender\.localhost:8080\/unsubscribe\?token=/);

    const weak = await changeWithToken('customer', token, 'password');
    expect(weak.status).toBe(400);
    expect(weak.body.errorCode).toBe('WeakPassword');

    expect((await changeWithToken('customer', token)).status).toBe(204);
    const signIn = await call(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username: server.demo.customer.username, password: newPassword },
    });
    expect(signIn.status).toBe(200);

    const reused = await changeWithToken('customer', token);
    expect(reused.status).toBe(409);
    expect(reused.body.errorCode).toBe('InvalidState');
  });

  it('mails an admin a link to /a/reset-password that no longer works after 30 minutes', async () => {
    smtp.mails.length = 0;
    expect((await requestReset('admin', server.demo.admin.username)).status).toBe(204);
    const mail = await smtp.waitForMail((m) => m.to.includes('admin@example.com'));
    const token = linkIn(mail.text, 'a');
    // The mail ends with its link: had it still been waiting then, it would be dropped, not sent late.
    const [queued] = await server.ctx.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.toAddress, 'admin@example.com'));
    expect(queued?.expiresAt?.getTime()).toBe((queued?.createdAt.getTime() ?? 0) + resetTokenLifetimeMs);
    server.clock.advanceMinutes(31);
    const late = await changeWithToken('admin', token);
    expect(late.status).toBe(409);
    expect(late.body.errorCode).toBe('InvalidState');
    expect((await changeWithToken('customer', token)).status).toBe(404);
  });

  it('answers 204 for an unknown username too, and sends nothing', async () => {
    smtp.mails.length = 0;
    const response = await requestReset('customer', 'nobody-by-this-name');
    expect(response.status).toBe(204);
    expect((await requestReset('customer', server.demo.customer.username)).status).toBe(204);
    await smtp.waitForMail((m) => m.to.includes('customer@example.com'));
    expect(smtp.mails).toHaveLength(1);
  });

  it('checks a reset link without spending it: 204 while usable, then the refusals of the change', async () => {
    smtp.mails.length = 0;
    const check = (kind: string, body: unknown) =>
      call(server.baseUrl, 'POST', `/api/auth/v1/${kind}/password/reset/check`, { body });
    expect((await requestReset('customer', server.demo.customer.username)).status).toBe(204);
    const token = linkIn((await smtp.waitForMail((m) => m.to.includes('customer@example.com'))).text, 'd');

    expect((await check('customer', { resetToken: token })).status).toBe(204);
    expect((await check('customer', { resetToken: token })).status).toBe(204);
    // Another kind's token and an unknown one are refused as the change refuses them.
    expect((await check('admin', { resetToken: token })).body).toMatchObject({ errorCode: 'ItemNotFound' });
    const unknown = await check('customer', { resetToken: 'never-issued' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ errorCode: 'ItemNotFound' });
    const noToken = await check('customer', {});
    expect(noToken.status).toBe(400);
    expect(noToken.body).toMatchObject({ errorCode: 'InvalidValue' });

    // The checks spent nothing: the link still sets the password once, and is refused after.
    expect((await changeWithToken('customer', token, 'harbor quilt meadow falcon 47')).status).toBe(204);
    const used = await check('customer', { resetToken: token });
    expect(used.status).toBe(409);
    expect(used.body).toMatchObject({ errorCode: 'InvalidState' });

    smtp.mails.length = 0;
    expect((await requestReset('admin', server.demo.admin.username)).status).toBe(204);
    const adminToken = linkIn((await smtp.waitForMail((m) => m.to.includes('admin@example.com'))).text, 'a');
    server.clock.advanceMinutes(31);
    const expired = await check('admin', { resetToken: adminToken });
    expect(expired.status).toBe(409);
    expect(expired.body).toMatchObject({ errorCode: 'InvalidState' });
  });

  it.each([
    ['an unknown reset token', { resetToken: 'never-issued', newPassword }, 404, 'ItemNotFound'],
    ['a body with both shapes mixed', { resetToken: 'x', username: 'y', newPassword }, 400, 'InvalidValue'],
    ['no body', undefined, 400, 'InvalidValue'],
  ])('answers %s with %i %s', async (_label, body, status, errorCode) => {
    const response = await call(server.baseUrl, 'POST', '/api/auth/v1/customer/password/change', {
      ...(body === undefined ? {} : { body }),
    });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ errorCode });
  });
});
