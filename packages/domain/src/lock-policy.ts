/**
 * The lock arithmetic of knowledge-based verification (docs/rules.md#attempt-budgets), as pure functions of
 * the time: 5 consecutive failures on one token lock that token for 15 minutes; 10 across one
 * consumer's tokens lock the consumer; each further lock doubles, capped at 24 hours; after 24
 * hours without a failure the counts start over. The database keeps one such state per token and
 * per consumer and moves it with these functions inside a row lock.
 */

export interface LockState {
  /** Failures since the last success or the last lock. */
  failedCount: number;
  /** Locks so far; the next lock lasts 15 minutes times 2 to this power. */
  lockLevel: number;
  lockedUntil: Date | null;
  lastFailureAt: Date | null;
}

export interface LockPolicy {
  /** Failures that lock. */
  threshold: number;
}

export const tokenLockPolicy: LockPolicy = { threshold: 5 };
export const consumerLockPolicy: LockPolicy = { threshold: 10 };

const minute = 60_000;
const hour = 60 * minute;
export const firstLockMs = 15 * minute;
export const longestLockMs = 24 * hour;
export const quietResetMs = 24 * hour;

/** The lock columns of a row that has them (a token, a consumer, a staff user), without the rest of the row. */
export function lockStateOf(row: LockState): LockState {
  return {
    failedCount: row.failedCount,
    lockLevel: row.lockLevel,
    lockedUntil: row.lockedUntil,
    lastFailureAt: row.lastFailureAt,
  };
}

export const unlockedState: LockState = {
  failedCount: 0,
  lockLevel: 0,
  lockedUntil: null,
  lastFailureAt: null,
};

export function sameLockState(a: LockState, b: LockState): boolean {
  return (
    a.failedCount === b.failedCount &&
    a.lockLevel === b.lockLevel &&
    a.lockedUntil?.getTime() === b.lockedUntil?.getTime() &&
    a.lastFailureAt?.getTime() === b.lastFailureAt?.getTime()
  );
}

export function isLocked(state: LockState, now: Date): boolean {
  return state.lockedUntil !== null && state.lockedUntil.getTime() > now.getTime();
}

/** How long the lock after `previousLocks` earlier locks lasts. */
export function lockDurationMs(previousLocks: number): number {
  // 2^7 * 15 minutes already exceeds a day; capping the exponent keeps the number finite.
  return Math.min(firstLockMs * 2 ** Math.min(previousLocks, 16), longestLockMs);
}

/** The state as it stands at `now`: after 24 quiet hours every count starts over. */
export function settle(state: LockState, now: Date): LockState {
  if (state.lastFailureAt === null) return state;
  if (isLocked(state, now)) return state;
  if (now.getTime() - state.lastFailureAt.getTime() >= quietResetMs) return unlockedState;
  return state;
}

export interface FailureOutcome {
  state: LockState;
  /** This failure started a lock. */
  lockedNow: boolean;
}

/** Counts one wrong answer. Callers refuse answers while locked, so a locked state never gets here. */
export function recordFailure(state: LockState, policy: LockPolicy, now: Date): FailureOutcome {
  const current = settle(state, now);
  const failedCount = current.failedCount + 1;
  if (failedCount < policy.threshold) {
    return { state: { ...current, failedCount, lastFailureAt: now }, lockedNow: false };
  }
  const lockedUntil = new Date(now.getTime() + lockDurationMs(current.lockLevel));
  return {
    state: { failedCount: 0, lockLevel: current.lockLevel + 1, lockedUntil, lastFailureAt: now },
    lockedNow: true,
  };
}

/**
 * A correct answer ends the run of consecutive failures. Earlier locks keep counting until the
 * quiet period has passed, so someone still guessing after the owner has signed in meets doubling
 * locks rather than starting again at 15 minutes.
 */
export function recordSuccess(state: LockState, now: Date): LockState {
  const current = settle(state, now);
  return { ...current, failedCount: 0 };
}

/**
 * The state that the failure reaching the threshold leaves, from the state it was counted on: a
 * lock one level longer than the last, and a count that starts over.
 */
export function lockedAfter(state: LockState, now: Date): LockState {
  return {
    failedCount: 0,
    lockLevel: state.lockLevel + 1,
    lockedUntil: new Date(now.getTime() + lockDurationMs(state.lockLevel)),
    lastFailureAt: now,
  };
}
