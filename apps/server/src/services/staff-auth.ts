import type { AuthTokenResult } from '@entry/domain';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { appsOrigin } from '../config.ts';
import type { AppContext } from '../context.ts';
import { type Database, oncePerHandle } from '../db/index.ts';
import { passwordResetTokens, type StaffKind, sessions, staffUsers, tenants } from '../db/schema.ts';
import { isSerializationFailure, partOf, type StatementPart } from '../db/sql.ts';
import { ApiError, apiMessages, notFound } from '../errors.ts';
import {
  isLocked,
  type LockPolicy,
  lockStateOf,
  recordFailure,
  recordSuccess,
  sameLockState,
  settle,
} from './kba-locks.ts';
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

const userInvalidSignIn = () => new ApiError(401, 'InvalidSignIn', apiMessages.invalidSignIn);
const userLocked = () => new ApiError(401, 'UserLocked', apiMessages.userLocked);

export const normaliseUsername = (username: string) => username.trim().toLowerCase();

/**
 * Every password sign-in reads its user: the read is built once per handle and prepared once per
 * connection on PostgreSQL, rather than built and planned on every sign-in.
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

const userKey = (kind: StaffKind, username: string) => `${kind}\u0000${normaliseUsername(username)}`;

/**
 * Staff users as this process last read them for a password sign-in, by kind and username. A
 * sign-in of a user read before checks the password against that row instead of reading it again,
 * and writes its session only while the row is still as read (`unchangedUser`); when it is not, the
 * sign-in decides again on the row as it is. Only users found enabled and unlocked are remembered,
 * at most `rememberedUsersLimit`, the oldest forgotten first (decision record 015).
 */
const rememberedUsersFor = oncePerHandle(() => new Map<string, StaffUser>());
const rememberedUsersLimit = 10_000;

function remember(db: Database, user: StaffUser): void {
  const users = rememberedUsersFor(db);
  const key = userKey(user.kind, user.username);
  users.delete(key);
  if (users.size >= rememberedUsersLimit) {
    const oldest = users.keys().next();
    if (!oldest.done) users.delete(oldest.value);
  }
  users.set(key, user);
}

const forget = (db: Database, user: Pick<StaffUser, 'kind' | 'username'>) =>
  rememberedUsersFor(db).delete(userKey(user.kind, user.username));

/**
 * Finds `user`'s row only while every column a sign-in decides on or puts in its token is as read:
 * the password, the lock, the name, the role and the tenant. Timestamps are compared to the
 * millisecond, as JavaScript read them.
 */
const unchangedUserText =
  'SELECT 1 FROM staff_users WHERE id = $1::bigint AND kind = $2::text AND username = $3::text ' +
  'AND password_hash = $4::text AND NOT disabled AND failed_count = $5::integer AND lock_level = $6::integer ' +
  "AND date_trunc('milliseconds', locked_until) IS NOT DISTINCT FROM $7::timestamptz " +
  "AND date_trunc('milliseconds', last_failure_at) IS NOT DISTINCT FROM $8::timestamptz " +
  'AND role_id = $9::integer AND display_name = $10::text AND tenant_id IS NOT DISTINCT FROM $11::integer';

const unchangedUser = (user: StaffUser): StatementPart => ({
  text: unchangedUserText,
  values: [
    user.id,
    user.kind,
    user.username,
    user.passwordHash,
    user.failedCount,
    user.lockLevel,
    user.lockedUntil?.toISOString() ?? null,
    user.lastFailureAt?.toISOString() ?? null,
    user.roleId,
    user.displayName,
    user.tenantId,
  ],
});

/** What a wrong password did, decided on the user's row as it is, under its lock. */
type FailureCount =
  | { counted: true; lockedNow: boolean }
  | { counted: false; because: 'locked' | 'disabled' | 'password changed' };

/**
 * Counts a wrong password under a row lock, so parallel attempts on any instance all count. The
 * row may have changed since the password was checked against `checked`: a lock set meanwhile
 * refuses without counting, as a lock found before the check does; a user disabled or removed is
 * refused without counting; a new password means the check proved nothing.
 */
async function countFailure(ctx: AppContext, checked: StaffUser): Promise<FailureCount> {
  return ctx.db.transaction(async (tx) => {
    const [user] = await tx.select().from(staffUsers).where(eq(staffUsers.id, checked.id)).for('update');
    const now = ctx.clock.now();
    if (user === undefined || user.disabled) return { counted: false, because: 'disabled' };
    if (user.passwordHash !== checked.passwordHash) return { counted: false, because: 'password changed' };
    if (isLocked(settle(lockStateOf(user), now), now)) return { counted: false, because: 'locked' };
    const { state, lockedNow } = recordFailure(lockStateOf(user), staffLockPolicy, now);
    await tx.update(staffUsers).set(state).where(eq(staffUsers.id, checked.id));
    return { counted: true, lockedNow };
  });
}

/**
 * The update that ends a user's run of failed sign-ins, not yet run (a sign-in writes it with its
 * session); none when there is no run to end, so that a user signing in many times at once (an
 * API client, a shared account) does not queue every sign-in behind one row lock.
 */
function successUpdates(ctx: AppContext, user: StaffUser) {
  const state = lockStateOf(user);
  const next = recordSuccess(state, ctx.clock.now());
  if (sameLockState(state, next)) return [];
  return [ctx.db.update(staffUsers).set(next).where(eq(staffUsers.id, user.id))];
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

/** The user whose password was right, and whether the check used the row as remembered. */
interface CheckedUser {
  user: StaffUser;
  remembered: boolean;
}

/**
 * Checks a username and password: unknown users cost the same hashing time, a lock refuses before
 * the password is looked at, and a wrong password counts toward the lock. With `useRemembered`,
 * a remembered row stands in for reading the user; a sign-in remembers the row
 * only once its session is written. When the client has gone before a hashing thread takes the
 * check, it rejects with a `ClientGoneError` and records nothing.
 */
async function checkPassword(check: PasswordCheck, useRemembered: boolean): Promise<CheckedUser> {
  const { ctx, kind, username, password, ip, event, clientGone } = check;
  // A remembered row is never locked: it was remembered from a sign-in that passed this check, and
  // a lock never starts by itself as time passes.
  const rememberedUser = useRemembered ? rememberedUsersFor(ctx.db).get(userKey(kind, username)) : undefined;
  const remembered = rememberedUser !== undefined;
  const user = rememberedUser ?? (await findUser(ctx.db, kind, username));
  const now = ctx.clock.now();
  if (user !== undefined && isLocked(settle(lockStateOf(user), now), now)) {
    forget(ctx.db, user);
    await verifyPassword(undefined, password, clientGone);
    await ctx.audit.record({
      event,
      outcome: 'locked',
      actor: `${kind}:${user.id}`,
      tenantId: user.tenantId,
      ip,
    });
    throw userLocked();
  }
  const matches = await verifyPassword(user?.passwordHash, password, clientGone);
  if (user === undefined) {
    await ctx.audit.record({
      event,
      outcome: 'failure',
      actor: null,
      ip,
      detail: { reason: 'unknown user' },
    });
    throw userInvalidSignIn();
  }
  if (matches) return { user, remembered };
  forget(ctx.db, user);
  const failure = await countFailure(ctx, user);
  // Checked against a password the user no longer has: check again against the one they have.
  if (!failure.counted && failure.because === 'password changed' && remembered) {
    return checkPassword(check, false);
  }
  const locked = failure.counted ? failure.lockedNow : failure.because === 'locked';
  await ctx.audit.record({
    event,
    outcome: locked ? 'locked' : 'failure',
    actor: `${kind}:${user.id}`,
    tenantId: user.tenantId,
    ip,
    detail: { reason: failure.counted ? 'wrong password' : failure.because },
  });
  throw locked ? userLocked() : userInvalidSignIn();
}

export async function staffSignIn(
  ctx: AppContext,
  kind: StaffKind,
  credentials: { username: string; password: string },
  ip: string,
  clientGone?: () => boolean,
): Promise<AuthTokenResult> {
  const check: PasswordCheck = { ctx, kind, ...credentials, ip, event: `${kind}.sign-in`, clientGone };
  try {
    return await signInChecked(check, await checkPassword(check, true));
  } catch (error) {
    if (!isSerializationFailure(error)) throw error;
    // The remembered row changed while the password was checked against it: decide again on the
    // row as it is now.
    return signInChecked(check, await checkPassword(check, false));
  }
}

async function signInChecked(
  check: PasswordCheck,
  { user, remembered }: CheckedUser,
): Promise<AuthTokenResult> {
  const { ctx, kind, ip, event } = check;
  if (await passwordExpired(ctx, user)) {
    forget(ctx.db, user);
    // Refused on the user's row as it is: the password may have changed since it was remembered.
    if (remembered) return signInChecked(check, await checkPassword(check, false));
    for (const update of successUpdates(ctx, user)) await update;
    await ctx.audit.record({
      event,
      outcome: 'failure',
      actor: `${kind}:${user.id}`,
      tenantId: user.tenantId,
      ip,
      detail: { reason: 'password expired' },
    });
    throw new ApiError(401, 'PasswordExpired', apiMessages.passwordExpired);
  }
  const updates = successUpdates(ctx, user);
  // The reset failure count and the audit row commit with the session, in its one statement; the
  // name the token carries is the user's, just checked. A remembered row must still be as read.
  try {
    const pair = await ctx.sessions.createSession(
      {
        scope: kind,
        tenantId: user.tenantId,
        staffUserId: user.id,
        accessType: kind === 'admin' ? 'Admin' : 'Customer',
        hasRestrictedAccess: false,
        roleId: user.roleId,
      },
      (sessionId) => [
        ...updates.map(partOf),
        ctx.audit.insertOf({
          event,
          outcome: 'success',
          actor: `${kind}:${user.id}`,
          tenantId: user.tenantId,
          ip,
          detail: { sessionId },
        }),
      ],
      {
        names: { consumerName: null, staffName: user.displayName, launchedByName: null },
        ...(remembered ? { onlyIf: unchangedUser(user) } : {}),
      },
    );
    // A row the sign-in changed (a run of failures ended) is read again next time.
    if (updates.length > 0) forget(ctx.db, user);
    else if (!remembered) remember(ctx.db, user);
    return pair;
  } catch (error) {
    if (isSerializationFailure(error)) forget(ctx.db, user);
    throw error;
  }
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

async function setPassword(ctx: AppContext, user: StaffUser, newPassword: string): Promise<void> {
  forget(ctx.db, user);
  const now = ctx.clock.now();
  await ctx.db
    .update(staffUsers)
    .set({
      passwordHash: await hashPassword(newPassword),
      passwordChangedAt: now,
      failedCount: 0,
      lockedUntil: null,
    })
    .where(eq(staffUsers.id, user.id));
  // A new password ends every session opened with the old one.
  await ctx.db
    .update(sessions)
    .set({ revokedAt: now, revokedReason: 'password-changed' })
    .where(and(eq(sessions.staffUserId, user.id), isNull(sessions.revokedAt)));
}

export type PasswordChange =
  | { username: string; currentPassword: string; newPassword: string }
  | { resetToken: string; newPassword: string };

export async function changePassword(
  ctx: AppContext,
  kind: StaffKind,
  change: PasswordChange,
  ip: string,
): Promise<void> {
  const event = `${kind}.password.change`;
  if ('resetToken' in change) {
    const hash = hashToken(change.resetToken);
    const [found] = await ctx.db
      .select({ token: passwordResetTokens, user: staffUsers })
      .from(passwordResetTokens)
      .innerJoin(staffUsers, eq(staffUsers.id, passwordResetTokens.userId))
      .where(and(eq(passwordResetTokens.hash, hash), eq(staffUsers.kind, kind)));
    if (found === undefined) throw notFound();
    const now = ctx.clock.now();
    if (found.token.usedAt !== null || found.token.expiresAt.getTime() <= now.getTime()) {
      throw new ApiError(409, 'InvalidState', apiMessages.invalidResetToken);
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
    if (claimed === undefined) throw new ApiError(409, 'InvalidState', apiMessages.invalidResetToken);
    await setPassword(ctx, found.user, change.newPassword);
    await ctx.audit.record({
      event,
      outcome: 'success',
      actor: `${kind}:${found.user.id}`,
      tenantId: found.user.tenantId,
      ip,
      detail: { by: 'reset-token' },
    });
    return;
  }

  const user = await findUser(ctx.db, kind, change.username);
  if (user === undefined) {
    await verifyPassword(undefined, change.currentPassword);
    throw notFound();
  }
  const { user: checked } = await checkPassword(
    { ctx, kind, username: change.username, password: change.currentPassword, ip, event },
    false,
  ).catch((error: unknown) => {
    if (error instanceof ApiError && error.errorCode === 'InvalidSignIn') {
      throw new ApiError(401, 'InvalidSignIn', apiMessages.wrongCurrentPassword, [
        { field: 'currentPassword', message: apiMessages.wrongCurrentPassword },
      ]);
    }
    throw error;
  });
  await assertStrongPassword(change.newPassword, [checked.username, checked.email, checked.displayName]);
  await setPassword(ctx, checked, change.newPassword);
  await ctx.audit.record({
    event,
    outcome: 'success',
    actor: `${kind}:${checked.id}`,
    tenantId: checked.tenantId,
    ip,
    detail: { by: 'current-password' },
  });
}
