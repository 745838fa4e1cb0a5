import type { AuthTokenResult } from '@entry/domain';
import { type LockPolicy, type LockState, lockedAfter, lockStateOf, quietResetMs } from '@entry/domain';
import { and, eq, gt, isNull, lt, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { appsOrigin } from '../config.ts';
import type { AppContext } from '../context.ts';
import { type Database, oncePerHandle } from '../db/index.ts';
import { passwordResetTokens, type StaffKind, sessions, staffUsers, tenants } from '../db/schema.ts';
import { sqlOf } from '../db/sql.ts';
import { ApiError, refuse } from '../refusals.ts';
import type { AuditEntry } from './audit.ts';
import { assertStrongPassword, hashPassword, verifyPassword } from './passwords.ts';
import { hashToken, randomToken } from './sessions.ts';
import { createSubscriptionLinks } from './subscriptions.ts';

/** 10 consecutive failures lock a staff account for 15 minutes, doubling up to 24 hours. */
export const staffLockPolicy: LockPolicy = { threshold: 10 };
export const resetTokenLifetimeMs = 30 * 60_000;

export const staffMailTexts = {
  resetSubject: 'Reset your password',
  resetBody: (link: string) =>
    `Someone asked to reset the password of your account. To choose a new password, open this link within 30 minutes:\n\n${link}\n\nThe link works once. If you did not ask for this, you can ignore this mail; your password stays as it is.`,
} as const;

type StaffUser = typeof staffUsers.$inferSelect;

export const normaliseUsername = (username: string) => username.trim().toLowerCase();

/**
 * The user as stored, for an attempt its budget refused and for a reset request: built once per
 * handle and prepared once per connection on PostgreSQL.
 */
const userQueryFor = oncePerHandle((db) =>
  db
    .select()
    .from(staffUsers)
    .where(
      and(eq(staffUsers.kind, sql.placeholder('kind')), eq(staffUsers.username, sql.placeholder('username'))),
    )
    .prepare('entry_staff_user'),
);

async function findUser(db: Database, kind: StaffKind, username: string): Promise<StaffUser | undefined> {
  const [user] = await userQueryFor(db).execute({ kind, username: normaliseUsername(username) });
  return user?.disabled ? undefined : user;
}

const notLockedAt = (now: Date) => or(isNull(staffUsers.lockedUntil), lte(staffUsers.lockedUntil, now));

/**
 * Pays for one password attempt before the password is looked at: counts it in the user's
 * failures while the account is unlocked and its budget not spent, in one conditional update that
 * also reads the user. After a quiet period the counts start over first (`settle`), and the
 * settled row no longer shows a last failure, so attempts reserved alongside count on from it.
 */
async function reserveAttempt(
  ctx: AppContext,
  kind: StaffKind,
  username: string,
): Promise<StaffUser | undefined> {
  const now = ctx.clock.now();
  const quietSince = new Date(now.getTime() - quietResetMs).toISOString();
  const quiet = sql`(${staffUsers.lastFailureAt} IS NOT NULL AND ${staffUsers.lastFailureAt} <= ${quietSince}::timestamptz)`;
  const [user] = await ctx.db
    .update(staffUsers)
    .set({
      failedCount: sql`CASE WHEN ${quiet} THEN 1 ELSE ${staffUsers.failedCount} + 1 END`,
      lockLevel: sql`CASE WHEN ${quiet} THEN 0 ELSE ${staffUsers.lockLevel} END`,
      lastFailureAt: sql`CASE WHEN ${quiet} THEN NULL ELSE ${staffUsers.lastFailureAt} END`,
    })
    .where(
      and(
        eq(staffUsers.kind, kind),
        eq(staffUsers.username, normaliseUsername(username)),
        eq(staffUsers.disabled, false),
        notLockedAt(now),
        or(quiet, lt(staffUsers.failedCount, staffLockPolicy.threshold)),
      ),
    )
    .returning();
  return user;
}

/** The row a reserved attempt was checked against, while the user is enabled and has that password. */
const asChecked = (reserved: StaffUser) =>
  and(
    eq(staffUsers.id, reserved.id),
    eq(staffUsers.disabled, false),
    eq(staffUsers.passwordHash, reserved.passwordHash),
  );

/**
 * A wrong password keeps its reserved place in the count; the one that reached the threshold locks
 * the account, unless a lock was set meanwhile or the password changed (which proves nothing), and
 * answers until when.
 */
async function recordWrongPassword(ctx: AppContext, reserved: StaffUser): Promise<Date | null> {
  const now = ctx.clock.now();
  const stillOpen = and(asChecked(reserved), notLockedAt(now));
  if (reserved.failedCount < staffLockPolicy.threshold) {
    await ctx.db.update(staffUsers).set({ lastFailureAt: now }).where(stillOpen);
    return null;
  }
  const locked = lockedAfter(lockStateOf(reserved), now);
  await ctx.db
    .update(staffUsers)
    .set(locked)
    .where(and(stillOpen, eq(staffUsers.lockLevel, reserved.lockLevel)));
  return locked.lockedUntil;
}

/**
 * A right password ends the run of failures only when no attempt was reserved after it; otherwise
 * it gives back its own place alone, so attempts still in flight stay paid for. A lock is never
 * touched: while locked the count stays at nought. Answers the user's row, or nothing when the
 * user was disabled or the password changed during the check.
 */
async function recordRightPassword(ctx: AppContext, reserved: StaffUser): Promise<StaffUser | undefined> {
  const [user] = await ctx.db
    .update(staffUsers)
    .set({ failedCount: ownPlaceGivenBack(reserved) })
    .where(asChecked(reserved))
    .returning();
  return user;
}

const ownPlaceGivenBack = (reserved: StaffUser) =>
  sql`CASE WHEN ${staffUsers.failedCount} = ${reserved.failedCount} THEN 0 ELSE GREATEST(${staffUsers.failedCount} - 1, 0) END`;

/** An attempt that was paid for but never judged (its client left) gives its place back. */
async function giveBackAttempt(ctx: AppContext, reserved: StaffUser): Promise<void> {
  await ctx.db
    .update(staffUsers)
    .set({ failedCount: sql`GREATEST(${staffUsers.failedCount} - 1, 0)` })
    .where(eq(staffUsers.id, reserved.id));
}

async function passwordExpired(ctx: AppContext, user: StaffUser): Promise<boolean> {
  if (user.tenantId === null) return false;
  const [tenant] = await ctx.db.select().from(tenants).where(eq(tenants.id, user.tenantId));
  const maxDays = tenant?.settings.maxPasswordAgeDays;
  if (maxDays === null || maxDays === undefined) return false;
  return ctx.clock.now().getTime() - user.passwordChangedAt.getTime() > maxDays * 86_400_000;
}

interface PasswordCheck {
  ctx: AppContext;
  kind: StaffKind;
  username: string;
  password: string;
  ip: string;
  event: string;
  /** Whether the client has gone: a check not started by then is dropped (decision record 014). */
  clientGone?: () => boolean;
}

/**
 * Checks a username and password, the attempt paid for first (`reserveAttempt`). An unknown or
 * disabled user costs the same hashing work and answers as a wrong password; a locked account, or
 * one whose budget attempts in flight have spent, is refused before its password is looked at.
 * Answers the row the right password was checked against; its reserved place is still taken.
 * When the client has gone before a hashing thread takes the check, it rejects with a
 * `ClientGoneError` and gives the place back.
 */
async function checkPassword(check: PasswordCheck): Promise<StaffUser> {
  const { ctx, kind, username, password, ip, event, clientGone } = check;
  const reserved = await reserveAttempt(ctx, kind, username);
  if (reserved === undefined) {
    const user = await findUser(ctx.db, kind, username);
    await verifyPassword(undefined, password, clientGone);
    if (user === undefined) {
      await ctx.audit.record({
        event,
        outcome: 'failure',
        actor: null,
        ip,
        detail: { reason: 'unknown user' },
      });
      throw refuse('invalidSignIn');
    }
    await ctx.audit.record({
      event,
      outcome: 'locked',
      actor: `${kind}:${user.id}`,
      tenantId: user.tenantId,
      ip,
    });
    throw refuse('userLocked', { retryAt: { until: user.lockedUntil, now: ctx.clock.now() } });
  }
  const matches = await verifyPassword(reserved.passwordHash, password, clientGone).catch(
    async (error: unknown) => {
      await giveBackAttempt(ctx, reserved);
      throw error;
    },
  );
  if (matches) return reserved;
  const lockedUntil = await recordWrongPassword(ctx, reserved);
  const locks = reserved.failedCount >= staffLockPolicy.threshold;
  await ctx.audit.record({
    event,
    outcome: locks ? 'locked' : 'failure',
    actor: `${kind}:${reserved.id}`,
    tenantId: reserved.tenantId,
    ip,
    detail: { reason: 'wrong password' },
  });
  throw locks
    ? refuse('userLocked', { retryAt: { until: lockedUntil, now: ctx.clock.now() } })
    : refuse('invalidSignIn');
}

/** A right password that proves nothing: the user was disabled or the password changed during the check. */
async function refuseChangedDuringCheck(check: PasswordCheck, reserved: StaffUser): Promise<never> {
  const { ctx, kind, ip, event } = check;
  await ctx.audit.record({
    event,
    outcome: 'failure',
    actor: `${kind}:${reserved.id}`,
    tenantId: reserved.tenantId,
    ip,
    detail: { reason: 'changed during the check' },
  });
  throw refuse('invalidSignIn');
}

export async function staffSignIn(
  ctx: AppContext,
  kind: StaffKind,
  credentials: { username: string; password: string },
  ip: string,
  clientGone?: () => boolean,
): Promise<AuthTokenResult> {
  const event = `${kind}.sign-in`;
  const check: PasswordCheck = { ctx, kind, ...credentials, ip, event, clientGone };
  const reserved = await checkPassword(check);
  const user = await recordRightPassword(ctx, reserved);
  if (user === undefined) return refuseChangedDuringCheck(check, reserved);
  if (await passwordExpired(ctx, user)) {
    await ctx.audit.record({
      event,
      outcome: 'failure',
      actor: `${kind}:${user.id}`,
      tenantId: user.tenantId,
      ip,
      detail: { reason: 'password expired' },
    });
    throw refuse('passwordExpired');
  }
  // The audit row commits with the session, in its one statement; the name the token carries is
  // the user's as the password check left the row.
  return ctx.sessions.open(
    {
      scope: kind,
      tenantId: user.tenantId,
      staffUserId: user.id,
      accessType: kind === 'admin' ? 'Admin' : 'Customer',
      hasRestrictedAccess: false,
      roleId: user.roleId,
    },
    {
      alongside: (sessionId) => [
        ctx.audit.insertOf({
          event,
          outcome: 'success',
          actor: `${kind}:${user.id}`,
          tenantId: user.tenantId,
          ip,
          detail: { sessionId },
        }),
      ],
      names: { consumerName: null, staffName: user.displayName, launchedByName: null },
    },
  );
}

/** The portal of each staff kind on the apps host (DESIGN.md section 6). */
const portalPrefix: Record<StaffKind, string> = { admin: '/a', customer: '/d' };

/** The reset-password page with a one-use reset token: the link a reset mails and a new account gets. */
export function resetPasswordUrl(config: AppContext['config'], kind: StaffKind, token: string): string {
  return `${appsOrigin(config)}${portalPrefix[kind]}/reset-password?token=${encodeURIComponent(token)}`;
}

async function sendResetMail(ctx: AppContext, user: StaffUser, token: string): Promise<void> {
  const link = resetPasswordUrl(ctx.config, user.kind, token);
  let unsubscribe = null;
  if (user.tenantId !== null) {
    const [tenant] = await ctx.db.select().from(tenants).where(eq(tenants.id, user.tenantId));
    if (tenant !== undefined) {
      unsubscribe = createSubscriptionLinks(ctx.config, ctx.subscriptionKey).unsubscribeLinksFor(tenant, {
        customerId: tenant.id,
        emailAddress: user.email,
      });
    }
  }
  await ctx.mail.enqueueMail({
    tenantId: user.tenantId,
    to: user.email,
    subject: staffMailTexts.resetSubject,
    text: staffMailTexts.resetBody(link),
    unsubscribe,
  });
}

/**
 * Always answers the same way: whether the user exists is never revealed. The work for a real
 * user happens off the response path so the answer takes as long either way.
 */
export function requestPasswordReset(
  ctx: AppContext,
  kind: StaffKind,
  username: string,
  ip: string,
  log: FastifyBaseLogger,
): void {
  const work = async () => {
    const user = await findUser(ctx.db, kind, username);
    await ctx.audit.record({
      event: `${kind}.password.reset-request`,
      outcome: user === undefined ? 'failure' : 'success',
      actor: user === undefined ? null : `${kind}:${user.id}`,
      tenantId: user?.tenantId ?? null,
      ip,
    });
    if (user === undefined) return;
    const token = randomToken();
    const now = ctx.clock.now();
    await ctx.db.insert(passwordResetTokens).values({
      hash: hashToken(token),
      userId: user.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + resetTokenLifetimeMs),
    });
    await sendResetMail(ctx, user, token);
  };
  work().catch((error: unknown) => log.error({ err: error }, 'password reset request failed'));
}

/** How a new password came, and the session of the request that set it, which stays. */
interface PasswordSetting {
  by: 'reset-token' | 'current-password';
  ip: string;
  keptSessionId: string | undefined;
}

/**
 * Sets a new password on `user`'s row where `unchanged` still finds it, with `counts` for its lock
 * columns, and ends what the old password gave: the user's unused reset links and other sessions,
 * each session's ending audited with its cause. All of it commits together, or nothing when the
 * row is no longer found (answered false).
 */
async function setPassword(
  ctx: AppContext,
  user: StaffUser,
  newPassword: string,
  rules: { unchanged: SQL | undefined; counts: Partial<LockState> },
  setting: PasswordSetting,
): Promise<boolean> {
  const passwordHash = await hashPassword(newPassword);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [changed] = await tx
      .update(staffUsers)
      .set({ passwordHash, passwordChangedAt: now, ...rules.counts })
      .where(and(eq(staffUsers.id, user.id), rules.unchanged))
      .returning({ id: staffUsers.id });
    if (changed === undefined) return false;
    const voidedLinks = await tx
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .where(and(eq(passwordResetTokens.userId, user.id), isNull(passwordResetTokens.usedAt)))
      .returning({ hash: passwordResetTokens.hash });
    const ended = await tx
      .update(sessions)
      .set({ revokedAt: now, revokedReason: 'password-changed' })
      .where(
        and(
          eq(sessions.staffUserId, user.id),
          isNull(sessions.revokedAt),
          setting.keptSessionId === undefined ? undefined : ne(sessions.id, setting.keptSessionId),
        ),
      )
      .returning({ id: sessions.id });
    const actor = `${user.kind}:${user.id}`;
    const entries: AuditEntry[] = [
      {
        event: `${user.kind}.password.change`,
        outcome: 'success',
        actor,
        tenantId: user.tenantId,
        ip: setting.ip,
        detail: { by: setting.by, voidedResetLinks: voidedLinks.length, endedSessions: ended.length },
      },
      ...ended.map(
        (session): AuditEntry => ({
          event: `${user.kind}.session.end`,
          outcome: 'revoked',
          actor,
          tenantId: user.tenantId,
          ip: setting.ip,
          detail: { sessionId: session.id, cause: 'password-changed' },
        }),
      ),
    ];
    for (const entry of entries) await tx.execute(sqlOf(ctx.audit.insertOf(entry)));
    return true;
  });
}

export type PasswordChange =
  | { username: string; currentPassword: string; newPassword: string }
  | { resetToken: string; newPassword: string };

/** A refusal of the current password, said as such: unknown users get the same answer. */
function asWrongCurrentPassword(error: unknown): never {
  if (error instanceof ApiError && error.errorCode === 'InvalidSignIn') {
    throw refuse('wrongCurrentPassword');
  }
  throw error;
}

/**
 * Sets a new password by a reset link or by the current password, which is checked against the
 * same budget as a sign-in. `keptSessionId` names the session of the request, which stays signed in.
 */
export async function changePassword(
  ctx: AppContext,
  kind: StaffKind,
  change: PasswordChange,
  ip: string,
  keptSessionId?: string,
): Promise<void> {
  if ('resetToken' in change) {
    const hash = hashToken(change.resetToken);
    const [found] = await ctx.db
      .select({ token: passwordResetTokens, user: staffUsers })
      .from(passwordResetTokens)
      .innerJoin(staffUsers, eq(staffUsers.id, passwordResetTokens.userId))
      .where(and(eq(passwordResetTokens.hash, hash), eq(staffUsers.kind, kind)));
    if (found === undefined) throw refuse('itemNotFound');
    const now = ctx.clock.now();
    if (found.token.usedAt !== null || found.token.expiresAt.getTime() <= now.getTime()) {
      throw refuse('invalidResetToken');
    }
    await assertStrongPassword(change.newPassword, [
      found.user.username,
      found.user.email,
      found.user.displayName,
    ]);
    // Single use even under parallel requests: only one update can claim the token.
    const [claimed] = await ctx.db
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(passwordResetTokens.hash, hash),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, now),
        ),
      )
      .returning({ hash: passwordResetTokens.hash });
    if (claimed === undefined) throw refuse('invalidResetToken');
    // Whoever holds the mailbox may unlock the account.
    await setPassword(
      ctx,
      found.user,
      change.newPassword,
      { unchanged: undefined, counts: { failedCount: 0, lockedUntil: null } },
      { by: 'reset-token', ip, keptSessionId },
    );
    return;
  }

  const check: PasswordCheck = {
    ctx,
    kind,
    username: change.username,
    password: change.currentPassword,
    ip,
    event: `${kind}.password.change`,
  };
  const reserved = await checkPassword(check).catch(asWrongCurrentPassword);
  try {
    await assertStrongPassword(change.newPassword, [reserved.username, reserved.email, reserved.displayName]);
  } catch (error) {
    await recordRightPassword(ctx, reserved);
    throw error;
  }
  // Attempts still in flight were made against the old password and count for nothing now.
  const set = await setPassword(
    ctx,
    reserved,
    change.newPassword,
    { unchanged: asChecked(reserved), counts: { failedCount: 0 } },
    { by: 'current-password', ip, keptSessionId },
  );
  if (!set) await refuseChangedDuringCheck(check, reserved).catch(asWrongCurrentPassword);
}
