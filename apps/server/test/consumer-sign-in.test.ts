import { type AuthTokenResult, authTokenResultSchema, decodeJwtPayload, roleIdByScope } from '@entry/domain';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, identityTokens, mfaCodes, sessions } from '../src/db/schema.ts';
import {
  auditEvents,
  type ConsumerFixture,
  createConsumer,
  createTenant,
  createToken,
  tokenRow,
} from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const identityTokenPath = '/api/auth/v1/consumer/sign-in/identity-token';
const lookupPath = '/api/auth/v1/consumer/sign-in/lookup';
const mfaPath = (code: string) => `/api/auth/v1/consumer/sign-in/mfa?mfaCode=${code}`;
const resendPath = '/api/auth/v1/consumer/sign-in/mfa/resend';

describe(`consumer sign-in (${databaseLabel})`, () => {
  let server: TestServer;
  let tenant: { customerId: number; subdomain: string };
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '1000' } });
    tenant = { customerId: server.demo.tenant.customerId, subdomain: server.demo.tenant.subdomain };
  });
  afterAll(async () => {
    await server?.close();
  });

  const lookup = (body: Record<string, unknown>) =>
    call<{ authToken: AuthTokenResult }>(server.baseUrl, 'POST', lookupPath, {
      body: { ...tenant, ...body },
    });

  /** The code of the last mail to `to`; mail leaves the outbox asynchronously. */
  async function lastCodeFor(to: string): Promise<string> {
    await server.ctx.mail.idle();
    const mail = server.mailer.sent.filter((sent) => sent.to === to).at(-1);
    const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
    if (code === undefined) throw new Error(`no code mailed to ${to}`);
    return code;
  }

  async function pendingSession(consumer: ConsumerFixture): Promise<AuthTokenResult> {
    const token = await createToken(server, consumer, 'Last4Ssn');
    const response = await lookup({ token: token.guid, last4Ssn: consumer.answers.last4Ssn });
    expect(response.status).toBe(200);
    return response.body.authToken;
  }

  describe('with a Direct identity token', () => {
    it('never fails when sign-ins and verifications of one consumer and token run at once', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Direct');
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          index % 2 === 0
            ? call(server.baseUrl, 'POST', identityTokenPath, { body: { token: token.guid, ...tenant } })
            : lookup({ token: token.guid, ...consumer.answers }),
        ),
      );
      expect(answers.map((answer) => answer.status).filter((status) => status >= 500)).toEqual([]);
      expect(answers.filter((_, index) => index % 2 === 0).map((answer) => answer.status)).toEqual(
        Array(4).fill(200),
      );
    });

    it('signs in with several links at once, each into a session of its own consumer and token', async () => {
      const consumers = await Promise.all(Array.from({ length: 6 }, () => createConsumer(server)));
      const tokens = await Promise.all(consumers.map((consumer) => createToken(server, consumer, 'Direct')));
      const answers = await Promise.all(
        tokens.map((token) =>
          call<AuthTokenResult>(server.baseUrl, 'POST', identityTokenPath, {
            body: { token: token.guid, ...tenant },
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      for (const [index, answer] of answers.entries()) {
        const token = tokens[index];
        expect(decodeJwtPayload(answer.body.accessToken)).toMatchObject({
          sid: answer.body.sessionGuid,
          identityToken: token?.guid,
        });
        const [session] = await server.ctx.db
          .select()
          .from(sessions)
          .where(eq(sessions.id, answer.body.sessionGuid));
        expect(session).toMatchObject({ consumerId: consumers[index]?.id, identityTokenGuid: token?.guid });
      }
    });

    it('signs in with a full consumer session, sets the refresh cookie and lastUsedAt', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Direct');
      const response = await call<AuthTokenResult>(server.baseUrl, 'POST', identityTokenPath, {
        body: { token: token.guid, ...tenant },
      });
      expect(response.status).toBe(200);
      const result = authTokenResultSchema.parse(response.body);
      expect(result).toMatchObject({ accessType: 'Consumer', hasRestrictedAccess: false });
      expect(decodeJwtPayload(result.accessToken)).toMatchObject({
        sid: result.sessionGuid,
        identityToken: token.guid,
        user: { name: 'Test Consumer', context: { roleId: roleIdByScope.consumer } },
      });
      const cookie = response.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).toMatch(/Path=\/api\/auth\/v1\/consumer/);
      expect((await tokenRow(server, token.guid)).lastUsedAt).toEqual(server.clock.now());
      const audited = (await auditEvents(server, 'consumer.sign-in.identity-token')).filter(
        (row) => row.detail.identityToken === token.guid,
      );
      expect(audited).toMatchObject([{ outcome: 'success', actor: `consumer:${consumer.id}` }]);
    });

    it('answers 404 TokenExpired for an expired token', async () => {
      const response = await call(server.baseUrl, 'POST', identityTokenPath, {
        body: { token: server.demo.identityTokens.expired, ...tenant },
      });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ errorCode: 'TokenExpired' });
    });

    it('refuses a token that needs verification with 400 InvalidValue naming the token', async () => {
      const response = await call(server.baseUrl, 'POST', identityTokenPath, {
        body: { token: server.demo.identityTokens.last4Ssn, ...tenant },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errorCode: 'InvalidValue', errors: [{ field: 'token' }] });
    });

    it('audits each refused link with its token and consumer, and changes nothing of it', async () => {
      const consumer = await createConsumer(server);
      const needsVerification = await createToken(server, consumer, 'Last4Ssn');
      const expired = await createToken(server, consumer, 'Direct', { validForMs: -1 });
      const byShortId = await call(server.baseUrl, 'POST', identityTokenPath, {
        body: { token: needsVerification.shortId, ...tenant },
      });
      expect(byShortId.status).toBe(400);
      expect(byShortId.body).toMatchObject({ errorCode: 'InvalidValue', errors: [{ field: 'token' }] });
      const late = await call(server.baseUrl, 'POST', identityTokenPath, {
        body: { token: expired.guid, ...tenant },
      });
      expect(late.body).toMatchObject({ errorCode: 'TokenExpired' });
      const audited = (await auditEvents(server, 'consumer.sign-in.identity-token')).filter(
        (row) => row.actor === `consumer:${consumer.id}`,
      );
      expect(audited.map(({ outcome, tenantId, detail }) => ({ outcome, tenantId, detail }))).toEqual([
        {
          outcome: 'failure',
          tenantId: tenant.customerId,
          detail: { identityToken: needsVerification.guid },
        },
        {
          outcome: 'failure',
          tenantId: tenant.customerId,
          detail: { identityToken: expired.guid, expired: true },
        },
      ]);
      expect((await tokenRow(server, needsVerification.guid)).lastUsedAt).toBeNull();
      expect((await tokenRow(server, expired.guid)).lastUsedAt).toBeNull();
    });

    it('answers 404 ItemNotFound for a revoked link', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Direct');
      await server.ctx.db
        .update(identityTokens)
        .set({ revokedAt: server.clock.now() })
        .where(eq(identityTokens.guid, token.guid));
      const response = await call(server.baseUrl, 'POST', identityTokenPath, {
        body: { token: token.guid, ...tenant },
      });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ errorCode: 'ItemNotFound' });
    });

    it.each([
      ['an unknown token', () => ({ token: '0f8fad5b-d9cb-469f-a165-70867728950e', ...tenant })],
      [
        'an unknown customer id',
        () => ({ token: server.demo.identityTokens.direct, customerId: 999_999, subdomain: 'sender' }),
      ],
      [
        'a subdomain that is not the customer id',
        () => ({
          token: server.demo.identityTokens.direct,
          customerId: tenant.customerId,
          subdomain: 'other',
        }),
      ],
    ])('answers 404 ItemNotFound for %s', async (_label, body) => {
      const response = await call(server.baseUrl, 'POST', identityTokenPath, { body: body() });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ errorCode: 'ItemNotFound' });
    });

    it("answers 404 for another tenant's token", async () => {
      const other = await createTenant(server);
      const consumer = await createConsumer(server, { tenantId: other.id });
      const token = await createToken(server, consumer, 'Direct');
      const response = await call(server.baseUrl, 'POST', identityTokenPath, {
        body: { token: token.guid, ...tenant },
      });
      expect(response.status).toBe(404);
    });

    it.each([
      ['no body', undefined],
      ['a missing token', { customerId: 1001, subdomain: 'sender' }],
      ['a customer id as text', { token: 'x', customerId: '1001', subdomain: 'sender' }],
      ['an unknown field', { token: 'x', customerId: 1001, subdomain: 'sender', extra: true }],
    ])('answers 400 InvalidValue for %s', async (_label, body) => {
      const response = await call(
        server.baseUrl,
        'POST',
        identityTokenPath,
        body === undefined ? {} : { body },
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errorCode: 'InvalidValue', errors: [expect.any(Object)] });
    });
  });

  describe('lookup (knowledge-based verification)', () => {
    it.each([
      ['Last4Ssn', ['last4Ssn']],
      ['PostalCode', ['postalCode']],
      ['DateOfBirth', ['dateOfBirth']],
      ['None', ['last4Ssn', 'postalCode', 'dateOfBirth']],
    ] as const)('a %s token asks for %j and mails a code for the MFA step', async (signInType, fields) => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, signInType);
      const answers = Object.fromEntries(fields.map((field) => [field, consumer.answers[field]]));
      const response = await lookup({ token: token.shortId ?? token.guid, ...answers });
      expect(response.status).toBe(200);
      expect(response.body.authToken).toMatchObject({ accessType: 'MfaPending', hasRestrictedAccess: true });
      const restricted = decodeJwtPayload(response.body.authToken.accessToken);
      expect(restricted).toMatchObject({ user: { context: { roleId: null } } });
      // Until the code is entered, the token names no one (FDCPA: nothing of the account yet).
      expect(JSON.stringify(restricted)).not.toContain('Test Consumer');
      expect(await lastCodeFor(consumer.email ?? '')).toMatch(/^\d{6}$/);
      expect((await tokenRow(server, token.guid)).lastUsedAt).toEqual(server.clock.now());
    });

    it.each([
      ['Last4Ssn', { postalCode: '90210' }, ['last4Ssn']],
      ['None', { last4Ssn: '1234' }, ['postalCode', 'dateOfBirth']],
    ] as const)(
      'a %s token without its fields answers 400 naming them',
      async (signInType, answers, fields) => {
        const consumer = await createConsumer(server);
        const token = await createToken(server, consumer, signInType);
        const response = await lookup({ token: token.guid, ...answers });
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({
          errorCode: 'InvalidValue',
          errors: fields.map((field) => ({ field })),
        });
      },
    );

    it('verifies several consumers at once: each gets its own session, and only a wrong answer counts', async () => {
      const consumers = await Promise.all(Array.from({ length: 5 }, () => createConsumer(server)));
      const tokens = await Promise.all(
        consumers.map((consumer) => createToken(server, consumer, 'Last4Ssn')),
      );
      const last4SsnOf = (index: number) => {
        const right = consumers[index]?.answers.last4Ssn ?? '';
        return index === 2 ? String((Number(right) + 1) % 10_000).padStart(4, '0') : right;
      };
      const answers = await Promise.all(
        tokens.map((token, index) => lookup({ token: token.guid, last4Ssn: last4SsnOf(index) })),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 409, 200, 200]);
      for (const [index, answer] of answers.entries()) {
        const token = tokens[index];
        if (token === undefined) throw new Error('no token');
        const row = await tokenRow(server, token.guid);
        if (index === 2) {
          expect(row).toMatchObject({ failedCount: 1 });
          continue;
        }
        expect(row).toMatchObject({ failedCount: 0, lastUsedAt: server.clock.now() });
        const { sessionGuid } = answer.body.authToken;
        expect(decodeJwtPayload(answer.body.authToken.accessToken)).toMatchObject({
          sid: sessionGuid,
          sub: `consumer:${consumers[index]?.id}`,
        });
        const [session] = await server.ctx.db.select().from(sessions).where(eq(sessions.id, sessionGuid));
        expect(session).toMatchObject({ consumerId: consumers[index]?.id, identityTokenGuid: token.guid });
      }
    });

    it('answers 409 InvalidSignIn for a wrong answer and audits the failure', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'DateOfBirth');
      const response = await lookup({ token: token.guid, dateOfBirth: '1901-01-01' });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ errorCode: 'InvalidSignIn', errors: [] });
      const failures = (await auditEvents(server, 'consumer.sign-in.lookup')).filter(
        (row) => row.detail.identityToken === token.guid,
      );
      expect(failures).toMatchObject([{ outcome: 'failure', actor: `consumer:${consumer.id}` }]);
    });

    it('answers 404 TokenExpired for an expired token and 404 ItemNotFound for an unknown one', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'PostalCode', { validForMs: 1000 });
      server.clock.advance(1000);
      const expired = await lookup({ token: token.guid, postalCode: consumer.answers.postalCode });
      expect(expired.status).toBe(404);
      expect(expired.body).toMatchObject({ errorCode: 'TokenExpired' });
      const unknown = await lookup({ token: '0000000000', postalCode: consumer.answers.postalCode });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ errorCode: 'ItemNotFound' });
    });

    it('answers 404 ItemNotFound for an unknown tenant', async () => {
      const response = await call(server.baseUrl, 'POST', lookupPath, {
        body: {
          customerId: 999_999,
          subdomain: 'nobody',
          last4Ssn: '1234',
          postalCode: '90210',
          dateOfBirth: '1980-04-15',
        },
      });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ errorCode: 'ItemNotFound' });
    });

    describe('without a token', () => {
      it('signs in when all three values match exactly one consumer', async () => {
        const consumer = await createConsumer(server);
        const response = await lookup({ ...consumer.answers });
        expect(response.status).toBe(200);
        expect(response.body.authToken.accessType).toBe('MfaPending');
        expect(await lastCodeFor(consumer.email ?? '')).toMatch(/^\d{6}$/);
      });

      it("signs in the demo's consumer without a link, whose answers are their own, with the mailed code", async () => {
        const { last4Ssn, postalCode, dateOfBirth } = server.demo.withoutLink;
        const response = await lookup({ last4Ssn, postalCode, dateOfBirth });
        expect(response.status).toBe(200);
        expect(response.body.authToken).toMatchObject({
          accessType: 'MfaPending',
          hasRestrictedAccess: true,
        });
        expect(await lastCodeFor(server.demo.consumerEmail)).toMatch(/^\d{6}$/);
      });

      it('answers 409 Ambiguous when several consumers match (the demo consumers share their values)', async () => {
        const response = await lookup({ ...server.demo.verification });
        expect(response.status).toBe(409);
        expect(response.body).toMatchObject({ errorCode: 'Ambiguous' });
      });

      it('answers 409 InvalidSignIn when nobody matches, with the tries left for that ZIP code and date of birth', async () => {
        const consumer = await createConsumer(server);
        const response = await lookup({ ...consumer.answers, dateOfBirth: '1901-02-03' });
        expect(response.status).toBe(409);
        expect(response.body).toMatchObject({ errorCode: 'InvalidSignIn', triesLeft: 4 });
        const again = await lookup({ ...consumer.answers, last4Ssn: '0000', dateOfBirth: '1901-02-03' });
        expect(again.body).toMatchObject({ errorCode: 'InvalidSignIn', triesLeft: 3 });
      });

      it('answers 400 naming each missing value', async () => {
        const response = await lookup({ last4Ssn: '1234' });
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ errors: [{ field: 'postalCode' }, { field: 'dateOfBirth' }] });
      });
    });

    it('gives a full session at once when the tenant does not require MFA', async () => {
      const noMfa = await createTenant(server, { mfaRequired: false });
      const consumer = await createConsumer(server, { tenantId: noMfa.id });
      const token = await createToken(server, consumer, 'PostalCode');
      const response = await call<{ authToken: AuthTokenResult }>(server.baseUrl, 'POST', lookupPath, {
        body: {
          customerId: noMfa.id,
          subdomain: noMfa.subdomain,
          token: token.guid,
          postalCode: consumer.answers.postalCode,
        },
      });
      expect(response.status).toBe(200);
      expect(response.body.authToken).toMatchObject({ accessType: 'Consumer', hasRestrictedAccess: false });
      expect(decodeJwtPayload(response.body.authToken.accessToken)).toMatchObject({
        sid: response.body.authToken.sessionGuid,
        identityToken: token.guid,
        user: { name: 'Test Consumer', context: { roleId: roleIdByScope.consumer } },
      });
      const [session] = await server.ctx.db
        .select()
        .from(sessions)
        .where(eq(sessions.id, response.body.authToken.sessionGuid));
      expect(session).toMatchObject({ consumerId: consumer.id, identityTokenGuid: token.guid });
      const refreshed = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/refresh', {
        body: { refreshToken: response.body.authToken.refreshToken },
      });
      expect(refreshed.status).toBe(200);
    });

    it('answers 409 InvalidState when MFA is required and no address is on file', async () => {
      const consumer = await createConsumer(server, { email: null });
      const token = await createToken(server, consumer, 'Last4Ssn');
      const response = await lookup({ token: token.guid, last4Ssn: consumer.answers.last4Ssn });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ errorCode: 'InvalidState' });
      expect(await server.ctx.db.select().from(sessions).where(eq(sessions.consumerId, consumer.id))).toEqual(
        [],
      );
      const [refusal] = await server.ctx.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.actor, `consumer:${consumer.id}`));
      expect(refusal).toMatchObject({
        event: 'consumer.sign-in.lookup',
        outcome: 'failure',
        detail: { identityToken: token.guid, noAddress: true },
      });
    });

    it.each([
      ['a malformed last4Ssn', { last4Ssn: '12a4' }],
      ['an impossible date of birth', { dateOfBirth: '1980-02-30' }],
      ['a customer id as text', { customerId: 'x' }],
      ['an unknown field', { ssn: '123-45-6789' }],
    ])('answers 400 InvalidValue for %s', async (_label, body) => {
      const response = await lookup(body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errorCode: 'InvalidValue' });
    });
  });

  describe('MFA step', () => {
    it('exchanges the mailed code for a full session on the same session guid', async () => {
      const consumer = await createConsumer(server);
      const pending = await pendingSession(consumer);
      const code = await lastCodeFor(consumer.email ?? '');
      const response = await call<AuthTokenResult>(server.baseUrl, 'POST', mfaPath(code), {
        token: pending.accessToken,
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        accessType: 'Consumer',
        hasRestrictedAccess: false,
        sessionGuid: pending.sessionGuid,
      });
      expect(decodeJwtPayload(response.body.accessToken)).toMatchObject({
        user: { context: { roleId: roleIdByScope.consumer } },
      });
      const again = await call(server.baseUrl, 'POST', mfaPath(code), { token: pending.accessToken });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ errorCode: 'InvalidSignIn' });
    });

    it('answers 409 InvalidSignIn for a wrong code and voids the code after 5 tries', async () => {
      const consumer = await createConsumer(server);
      const pending = await pendingSession(consumer);
      const code = await lastCodeFor(consumer.email ?? '');
      const wrong = code === '000000' ? '111111' : '000000';
      for (let i = 0; i < 5; i += 1) {
        const response = await call(server.baseUrl, 'POST', mfaPath(wrong), { token: pending.accessToken });
        expect(response.status).toBe(409);
        expect(response.body).toMatchObject({ errorCode: 'InvalidSignIn', triesLeft: 4 - i });
      }
      expect((await call(server.baseUrl, 'POST', mfaPath(code), { token: pending.accessToken })).status).toBe(
        409,
      );
    });

    it('counts at most 5 tries of a code under 20 parallel wrong codes, and 10 of the consumer MFA budget', async () => {
      const consumer = await createConsumer(server);
      const pending = await pendingSession(consumer);
      const code = await lastCodeFor(consumer.email ?? '');
      const wrong = code === '000000' ? '111111' : '000000';
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          call(server.baseUrl, 'POST', mfaPath(wrong), { token: pending.accessToken }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(10);
      expect(answers.filter((answer) => answer.status === 403)).toHaveLength(10);
      const rows = await server.ctx.db
        .select()
        .from(mfaCodes)
        .where(eq(mfaCodes.sessionId, pending.sessionGuid));
      expect(rows.map((row) => row.attempts)).toEqual([5]);
    });

    it('refuses a code older than 10 minutes: the pending session has ended with it', async () => {
      const consumer = await createConsumer(server);
      const pending = await pendingSession(consumer);
      const code = await lastCodeFor(consumer.email ?? '');
      server.clock.advanceMinutes(10);
      expect((await call(server.baseUrl, 'POST', mfaPath(code), { token: pending.accessToken })).status).toBe(
        401,
      );
    });

    it('resends at most once a minute; the new code replaces the old one', async () => {
      const consumer = await createConsumer(server);
      const pending = await pendingSession(consumer);
      const first = await lastCodeFor(consumer.email ?? '');

      const tooSoon = await call(server.baseUrl, 'POST', resendPath, { token: pending.accessToken });
      expect(tooSoon.status).toBe(429);
      expect(tooSoon.body).toMatchObject({ errorCode: 'ToManyRequests' });
      expect(tooSoon.headers.get('retry-after')).toBe('60');

      const mailsTo = () => server.mailer.sent.filter((mail) => mail.to === consumer.email).length;
      expect(mailsTo()).toBe(1);
      server.clock.advance(60_000);
      const resent = await call(server.baseUrl, 'POST', resendPath, { token: pending.accessToken });
      expect(resent.status).toBe(204);
      await server.ctx.mail.idle();
      expect(mailsTo()).toBe(2);
      const second = await lastCodeFor(consumer.email ?? '');
      if (second !== first) {
        expect(
          (await call(server.baseUrl, 'POST', mfaPath(first), { token: pending.accessToken })).status,
        ).toBe(409);
      }
      expect(
        (await call(server.baseUrl, 'POST', mfaPath(second), { token: pending.accessToken })).status,
      ).toBe(200);
    });

    it.each([
      ['no bearer token', undefined, '123456', 401, 'NotAuthorized'],
      ['a garbled bearer token', 'x.y.z', '123456', 401, 'NotAuthorized'],
      ['a code that is not 6 digits', 'pending', '12345', 400, 'InvalidValue'],
    ])('answers %s with %i %s', async (_label, bearer, code, status, errorCode) => {
      const consumer = await createConsumer(server);
      const pending = await pendingSession(consumer);
      const token = bearer === 'pending' ? pending.accessToken : bearer;
      const response = await call(
        server.baseUrl,
        'POST',
        mfaPath(code),
        token === undefined ? {} : { token },
      );
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ errorCode });
    });

    it('answers 409 InvalidState when a full session calls the MFA step', async () => {
      const consumer = await createConsumer(server);
      const direct = await createToken(server, consumer, 'Direct');
      const full = await call<AuthTokenResult>(server.baseUrl, 'POST', identityTokenPath, {
        body: { token: direct.guid, ...tenant },
      });
      const response = await call(server.baseUrl, 'POST', mfaPath('123456'), {
        token: full.body.accessToken,
      });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ errorCode: 'InvalidState' });
    });

    it('a restricted token never reveals payment data', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Last4Ssn');
      const pending = await lookup({ token: token.guid, last4Ssn: consumer.answers.last4Ssn });
      const read = await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${token.guid}`, {
        token: pending.body.authToken.accessToken,
      });
      expect(read.body).toMatchObject({ data: null });
    });
  });
});
