import {
  consumerLockPolicy,
  isLocked,
  type LockState,
  lockDurationMs,
  recordFailure,
  recordSuccess,
  sameLockState,
  settle,
  tokenLockPolicy,
  unlockedState,
} from '@entry/domain';
import { describe, expect, it } from 'vitest';

const minute = 60_000;
const hour = 60 * minute;
const start = new Date('2025-01-01T00:00:00Z');
const at = (ms: number) => new Date(start.getTime() + ms);

function failTimes(state: LockState, times: number, threshold: number, now: Date) {
  let current = state;
  let locks = 0;
  for (let i = 0; i < times; i += 1) {
    const outcome = recordFailure(current, { threshold }, now);
    current = outcome.state;
    if (outcome.lockedNow) locks += 1;
  }
  return { state: current, locks };
}

describe('lockDurationMs', () => {
  it.each([
    [0, 15 * minute],
    [1, 30 * minute],
    [2, hour],
    [6, 16 * hour],
    [7, 24 * hour],
    [40, 24 * hour],
  ])('after %i earlier locks: %i ms', (previous, expected) => {
    expect(lockDurationMs(previous)).toBe(expected);
  });
});

describe('token lock', () => {
  it('locks on the fifth consecutive failure for 15 minutes', () => {
    const four = failTimes(unlockedState, 4, tokenLockPolicy.threshold, start);
    expect(four.locks).toBe(0);
    expect(isLocked(four.state, start)).toBe(false);

    const fifth = recordFailure(four.state, tokenLockPolicy, start);
    expect(fifth.lockedNow).toBe(true);
    expect(isLocked(fifth.state, at(15 * minute - 1))).toBe(true);
    expect(isLocked(fifth.state, at(15 * minute))).toBe(false);
  });

  it('doubles each further lock', () => {
    let state = failTimes(unlockedState, 5, 5, start).state;
    const firstEnd = state.lockedUntil?.getTime() ?? 0;
    state = failTimes(state, 5, 5, new Date(firstEnd)).state;
    expect((state.lockedUntil?.getTime() ?? 0) - firstEnd).toBe(30 * minute);
    const secondEnd = state.lockedUntil?.getTime() ?? 0;
    state = failTimes(state, 5, 5, new Date(secondEnd)).state;
    expect((state.lockedUntil?.getTime() ?? 0) - secondEnd).toBe(hour);
  });

  it('a success ends the run of consecutive failures', () => {
    const four = failTimes(unlockedState, 4, 5, start).state;
    const afterSuccess = recordSuccess(four, start);
    expect(failTimes(afterSuccess, 4, 5, start).locks).toBe(0);
  });

  it('a success changes nothing when there is no run to end, and knows when there is', () => {
    expect(sameLockState(unlockedState, recordSuccess(unlockedState, start))).toBe(true);
    const one = recordFailure(unlockedState, tokenLockPolicy, start).state;
    expect(sameLockState(one, recordSuccess(one, start))).toBe(false);
    const locked = failTimes(unlockedState, 5, 5, start).state;
    const afterLock = at((locked.lockedUntil?.getTime() ?? 0) - start.getTime());
    // Past its lock, the level still counts until 24 quiet hours have passed: nothing to write.
    expect(sameLockState(locked, recordSuccess(locked, afterLock))).toBe(true);
    expect(sameLockState(locked, recordSuccess(locked, at(24 * hour)))).toBe(false);
  });

  it('starts over after 24 quiet hours, including the doubling', () => {
    const locked = failTimes(unlockedState, 5, 5, start).state;
    expect(settle(locked, at(24 * hour - 1)).lockLevel).toBe(1);
    const quiet = settle(locked, at(24 * hour));
    expect(quiet).toEqual(unlockedState);
    const relocked = recordFailure(
      failTimes(quiet, 4, 5, at(24 * hour)).state,
      tokenLockPolicy,
      at(24 * hour),
    );
    expect((relocked.state.lockedUntil?.getTime() ?? 0) - at(24 * hour).getTime()).toBe(15 * minute);
  });

  it('keeps counting failures that are less than 24 hours apart', () => {
    const three = failTimes(unlockedState, 3, 5, start).state;
    const later = failTimes(three, 2, 5, at(23 * hour));
    expect(later.locks).toBe(1);
  });
});

describe('consumer lock', () => {
  it('locks on the tenth failure across the consumer', () => {
    expect(failTimes(unlockedState, 9, consumerLockPolicy.threshold, start).locks).toBe(0);
    expect(failTimes(unlockedState, 10, consumerLockPolicy.threshold, start).locks).toBe(1);
  });
});
