import type { AuthTokenResult } from '@entry/domain';
import { count, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, mailOutbox, mfaCodes, refreshTokens, sessions } from '../src/db/schema.ts';
import { pruneExpiredRows, retentionDays } from '../src/services/retention.ts';
import { call, databaseLabel, signInAdmin, startTestServer, type TestServer } from './helpers/server.ts';

const dayMinutes = 24 * 60;

describe(`retention: ended sessions and sent mail are deleted after ${retentionDays} days (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const signIn = () => signInAdmin(server);
  const sessionsLeft = async (ids: string[]) =>
    (await server.ctx.db.select({ id: sessions.id }).from(sessions).where(inArray(sessions.id, ids))).map(
      (row) => row.id,
    );
  const auditRows = async () => (await server.ctx.db.select({ rows: count() }).from(auditLog))[0]?.rows;
  const prune = () => pruneExpiredRows(server.ctx.db, server.clock.now());

  it('deletes a signed-out and an expired session, with their refresh tokens and codes, once they ended that long ago', async () => {
    const signedOut = await signIn();
    const signOut = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-out', {
      token: signedOut.accessToken,
      headers: { 'content-type': 'application/json' },
    });
    expect(signOut.status).toBe(204);
    const leftToExpire = await signIn();
    const ended = [signedOut.sessionGuid, leftToExpire.sessionGuid];
    await server.ctx.db.insert(mfaCodes).values({
      sessionId: leftToExpire.sessionGuid,
      codeHash: 'code of an ended session',
      expiresAt: new Date(server.clock.now().getTime() + 10 * 60_000),
      createdAt: server.clock.now(),
    });

    server.clock.advanceMinutes((retentionDays - 1) * dayMinutes);
    await prune();
    expect(await sessionsLeft(ended)).toEqual(expect.arrayContaining(ended));

    server.clock.advanceMinutes(2 * dayMinutes);
    const auditBefore = await auditRows();
    const pruned = await prune();
    expect(pruned.sessions).toBeGreaterThanOrEqual(2);
    expect(await sessionsLeft(ended)).toEqual([]);
    const tokens = await server.ctx.db
      .select({ hash: refreshTokens.hash })
      .from(refreshTokens)
      .where(inArray(refreshTokens.sessionId, ended));
    expect(tokens).toEqual([]);
    const codes = await server.ctx.db
      .select({ id: mfaCodes.id })
      .from(mfaCodes)
      .where(inArray(mfaCodes.sessionId, ended));
    expect(codes).toEqual([]);
    expect(await auditRows()).toBe(auditBefore);
  });

  it('keeps a session that is still open, however old, and it still refreshes', async () => {
    // Refresh tokens that last 10 days: a session renewed every 9 days stays open past the retention
    // (an idle limit as long as its age, so refreshes alone keep it).
    const longLived = await startTestServer({
      env: {
        REFRESH_TOKEN_MINUTES: String(10 * dayMinutes),
        SESSION_MAX_MINUTES: String(60 * dayMinutes),
        STAFF_IDLE_MINUTES: String(60 * dayMinutes),
      },
    });
    try {
      const first = await signInAdmin(longLived);
      let refreshToken = first.refreshToken;
      for (let renewal = 0; renewal < 4; renewal += 1) {
        longLived.clock.advanceMinutes(9 * dayMinutes);
        const refreshed = await call<AuthTokenResult>(
          longLived.baseUrl,
          'POST',
          '/api/auth/v1/admin/refresh',
          {
            body: { refreshToken },
          },
        );
        expect(refreshed.status).toBe(200);
        refreshToken = refreshed.body.refreshToken;
      }
      expect(await pruneExpiredRows(longLived.ctx.db, longLived.clock.now())).toMatchObject({ sessions: 0 });
      const kept = await longLived.ctx.db
        .select({ id: sessions.id })
        .from(sessions)
        .where(eq(sessions.id, first.sessionGuid));
      expect(kept).toHaveLength(1);
      const afterPruning = await call(longLived.baseUrl, 'POST', '/api/auth/v1/admin/refresh', {
        body: { refreshToken },
      });
      expect(afterPruning.status).toBe(200);
    } finally {
      await longLived.close();
    }
  });

  it('deletes mail sent that long ago and keeps mail still waiting to go', async () => {
    const enqueue = (to: string) =>
      server.ctx.mail.enqueueMail({
        kind: 'test',
        tenantId: null,
        to,
        subject: 'Test',
        text: 'Body',
        unsubscribe: null,
      });
    const sentId = await enqueue('sent@example.com');
    await server.ctx.mail.idle();
    const [sent] = await server.ctx.db
      .select({ sentAt: mailOutbox.sentAt })
      .from(mailOutbox)
      .where(eq(mailOutbox.id, sentId));
    expect(sent?.sentAt).not.toBeNull();

    server.clock.advanceMinutes((retentionDays + 1) * dayMinutes);
    const [waiting] = await server.ctx.db
      .insert(mailOutbox)
      .values({
        toAddress: 'waiting@example.com',
        subject: 'Test',
        textBody: 'Body',
        createdAt: server.clock.now(),
      })
      .returning({ id: mailOutbox.id });
    const pruned = await prune();
    expect(pruned.sentMail).toBeGreaterThanOrEqual(1);
    const left = await server.ctx.db.select({ id: mailOutbox.id }).from(mailOutbox);
    expect(left.map((row) => row.id)).not.toContain(sentId);
    expect(left.map((row) => row.id)).toContain(waiting?.id);
  });
});
