import type { AuthTokenResult } from '@entry/domain';
import { and, eq } from 'drizzle-orm';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, refreshTokens } from '../src/db/schema.ts';
import { hashToken } from '../src/services/secret-tokens.ts';
import { call, databaseLabel, signInAdmin, startTestServer, type TestServer } from './helpers/server.ts';

function refreshCookie(headers: Headers): string | undefined {
  const line = headers.getSetCookie().find((entry) => entry.startsWith('entry-refresh='));
  return line?.split(';')[0]?.slice('entry-refresh='.length);
}

describe(`sessions: refresh rotation, grace, reuse, sign-out (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const signIn = () => signInAdmin(server);
  const refreshWithCookie = (token: string, scope = 'admin') =>
    call<AuthTokenResult>(server.baseUrl, 'POST', `/api/auth/v1/${scope}/refresh`, {
      headers: { cookie: `entry-refresh=${token}`, 'content-type': 'application/json' },
    });
  /** An authenticated admin call: launching a customer. */
  const adminCall = (accessToken: string) =>
    call(server.baseUrl, 'POST', '/api/auth/v1/launch/customer/1001', { token: accessToken });

  it('rotates the refresh token on every refresh (cookie, body-less POST with a JSON content type)', async () => {
    const first = await signIn();
    server.clock.advanceMinutes(5);
    const refreshed = await refreshWithCookie(first.refreshToken);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.sessionGuid).toBe(first.sessionGuid);
    expect(refreshed.body.refreshToken).not.toBe(first.refreshToken);
    expect(refreshCookie(refreshed.headers)).toBe(refreshed.body.refreshToken);
    expect((await adminCall(refreshed.body.accessToken)).status).toBe(200);
  });

  it('accepts the refresh token in a JSON body too, and without any content type', async () => {
    const first = await signIn();
    const viaBody = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/refresh', {
      body: { refreshToken: first.refreshToken },
    });
    expect(viaBody.status).toBe(200);
    const noContentType = await fetch(`${server.baseUrl}/api/auth/v1/admin/refresh`, { method: 'POST' });
    expect(noContentType.status).toBe(401);
    expect(await noContentType.json()).toMatchObject({ errorCode: 'NotAuthorized' });
  });

  it('gives a sibling pair for the same session when a rotated token comes again within 10 s', async () => {
    const first = await signIn();
    const tabOne = await refreshWithCookie(first.refreshToken);
    server.clock.advance(9_000);
    const tabTwo = await refreshWithCookie(first.refreshToken);
    expect(tabTwo.status).toBe(200);
    expect(tabTwo.body.sessionGuid).toBe(first.sessionGuid);
    expect(tabTwo.body.refreshToken).not.toBe(tabOne.body.refreshToken);
    expect((await refreshWithCookie(tabOne.body.refreshToken)).status).toBe(200);
    expect((await refreshWithCookie(tabTwo.body.refreshToken)).status).toBe(200);
  });

  it('treats a rotated token after the grace as reuse: the session is revoked and audited', async () => {
    const first = await signIn();
    const rotated = await refreshWithCookie(first.refreshToken);
    server.clock.advance(11_000);
    const reuse = await refreshWithCookie(first.refreshToken);
    expect(reuse.status).toBe(401);
    expect(reuse.body).toMatchObject({ errorCode: 'NotAuthorized' });
    expect((await refreshWithCookie(rotated.body.refreshToken)).status).toBe(401);
    expect((await adminCall(rotated.body.accessToken)).status).toBe(401);
    const audited = await server.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.event, 'admin.refresh.reuse'), eq(auditLog.outcome, 'revoked')));
    expect(audited.some((row) => row.detail.sessionId === first.sessionGuid)).toBe(true);
  });

  it('rotates a token once when refreshes race: one successor is named, every racer gets a working pair', async () => {
    const first = await signIn();
    const racers = await Promise.all(Array.from({ length: 6 }, () => refreshWithCookie(first.refreshToken)));
    expect(racers.map((racer) => racer.status)).toEqual(Array(6).fill(200));
    const issued = racers.map((racer) => racer.body.refreshToken);
    expect(new Set(issued).size).toBe(6);
    const [rotated] = await server.ctx.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.hash, hashToken(first.refreshToken)));
    expect(issued.map(hashToken)).toContain(rotated?.replacedBy);
    for (const token of issued) expect((await refreshWithCookie(token)).status).toBe(200);
  });

  it('refreshes several sessions at once, each into a pair of its own session', async () => {
    // One after the other: each second step takes an authenticator code of its own time step.
    const signedIn: AuthTokenResult[] = [];
    for (let session = 0; session < 5; session += 1) signedIn.push(await signIn());
    const refreshed = await Promise.all(signedIn.map((pair) => refreshWithCookie(pair.refreshToken)));
    expect(refreshed.map((answer) => answer.status)).toEqual(Array(5).fill(200));
    expect(refreshed.map((answer) => answer.body.sessionGuid)).toEqual(
      signedIn.map((pair) => pair.sessionGuid),
    );
    for (const answer of refreshed)
      expect((await refreshWithCookie(answer.body.refreshToken)).status).toBe(200);
  });

  it('issues no refresh token for a reused, revoked or expired one', async () => {
    const sessionTokens = async (sessionId: string) =>
      (await server.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.sessionId, sessionId))).length;
    const first = await signIn();
    await refreshWithCookie(first.refreshToken);
    server.clock.advance(11_000);
    expect((await refreshWithCookie(first.refreshToken)).status).toBe(401);
    expect((await refreshWithCookie(first.refreshToken)).status).toBe(401);
    expect(await sessionTokens(first.sessionGuid)).toBe(2);

    const expiring = await signIn();
    server.clock.advanceMinutes(61);
    expect((await refreshWithCookie(expiring.refreshToken)).status).toBe(401);
    expect(await sessionTokens(expiring.sessionGuid)).toBe(1);
  });

  it('refuses a refresh token past its lifetime, and an access token past its own', async () => {
    const first = await signIn();
    server.clock.advanceMinutes(16);
    expect((await adminCall(first.accessToken)).status).toBe(401);
    server.clock.advanceMinutes(45);
    expect((await refreshWithCookie(first.refreshToken)).status).toBe(401);
  });

  it('signs out: the session is revoked, its access token refused from then on, its cookie cleared', async () => {
    const first = await signIn();
    expect((await adminCall(first.accessToken)).status).toBe(200);
    const signOut = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-out', {
      token: first.accessToken,
      headers: { 'content-type': 'application/json' },
    });
    expect(signOut.status).toBe(204);
    expect(signOut.headers.getSetCookie().join()).toMatch(/entry-refresh=;/);
    const after = await adminCall(first.accessToken);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ errorCode: 'NotAuthorized' });
    expect((await refreshWithCookie(first.refreshToken)).status).toBe(401);
  });

  it('signs out by the refresh cookie alone', async () => {
    const first = await signIn();
    const signOut = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-out', {
      headers: { cookie: `entry-refresh=${first.refreshToken}` },
    });
    expect(signOut.status).toBe(204);
    expect((await adminCall(first.accessToken)).status).toBe(401);
  });

  it('refuses a token of another scope with 403 NotPermitted, and a refresh token at another scope', async () => {
    const customer = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username: server.demo.customer.username, password: server.demo.customer.password },
    });
    expect(customer.status).toBe(200);
    const response = await adminCall(customer.body.accessToken);
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ errorCode: 'NotPermitted' });
    expect((await refreshWithCookie(customer.body.refreshToken, 'admin')).status).toBe(401);
  });

  it.each([
    ['no token', undefined],
    ['a malformed token', 'not-a-jwt'],
    ['a forged signature', 'eyJhbGciOiJFZERTQSIsImtpZCI6IngifQ.eyJzaWQiOiJ4In0.c2lnbmF0dXJl'],
  ])('refuses %s with 401 NotAuthorized', async (_label, token) => {
    const response = await call(server.baseUrl, 'POST', '/api/auth/v1/launch/customer/1001', {
      ...(token === undefined ? {} : { token }),
    });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ errorCode: 'NotAuthorized', errors: [] });
  });

  it.each(['customer', 'consumer'])('serves refresh and sign-out for the %s scope too', async (scope) => {
    const noToken = await call(server.baseUrl, 'POST', `/api/auth/v1/${scope}/refresh`);
    expect(noToken.status).toBe(401);
    expect(noToken.body).toMatchObject({ errorCode: 'NotAuthorized' });
    expect((await call(server.baseUrl, 'POST', `/api/auth/v1/${scope}/sign-out`)).status).toBe(204);
    if (scope !== 'customer') return;
    const { username, password } = server.demo.customer;
    const signIn = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username, password },
    });
    const refreshed = await refreshWithCookie(signIn.body.refreshToken, 'customer');
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.accessType).toBe('Customer');
  });

  it('publishes the signing key at the JWKS endpoint, and tokens verify with it', async () => {
    const first = await signIn();
    const jwks = await call<{ keys: { kid: string }[] }>(
      server.baseUrl,
      'GET',
      '/api/auth/.well-known/jwks.json',
    );
    expect(jwks.status).toBe(200);
    const { kid } = decodeProtectedHeader(first.accessToken);
    expect(jwks.body.keys.map((key) => key.kid)).toContain(kid);
    const { payload } = await jwtVerify(first.accessToken, createLocalJWKSet(jwks.body as never), {
      currentDate: server.clock.now(),
    });
    expect(payload).toMatchObject({ scope: 'admin', accessType: 'Admin', hasRestrictedAccess: false });
  });
});
