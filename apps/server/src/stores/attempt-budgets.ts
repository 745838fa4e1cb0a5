import { firstLockMs, type LockPolicy, longestLockMs, quietResetMs } from '@entry/domain';
import { and, eq, gte, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { attemptBudgets, type BudgetKind } from '../db/schema.ts';

/**
 * Budgets of attempts that have no row of their own (docs/rules.md#attempt-budgets): an attempt takes a unit
 * before it is judged, in one conditional upsert, so a burst of any size on any number of
 * instances gets at most `threshold` judged before the lock. Every later change is conditional on
 * the row as it is then, never a state read earlier.
 */

export interface Budget {
  kind: BudgetKind;
  key: string;
  policy: LockPolicy;
}

/** A unit taken (`taken` counts it), or the refusal of a locked budget and until when, if known. */
export type Take = { taken: number } | { lockedUntil: Date | null };

const timestamp = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** Whether the budget's failures lie 24 quiet hours back, so its counts start over. */
const quiet = (now: Date): SQL =>
  sql`(${attemptBudgets.lastFailureAt} IS NOT NULL AND ${attemptBudgets.lastFailureAt} <= ${timestamp(new Date(now.getTime() - quietResetMs))})`;

const notLocked = (now: Date) =>
  or(isNull(attemptBudgets.lockedUntil), lte(attemptBudgets.lockedUntil, timestamp(now) as SQL<Date>));

const ofBudget = (budget: Budget) =>
  and(eq(attemptBudgets.kind, budget.kind), eq(attemptBudgets.key, budget.key));

export async function takeAttempt(db: Database, budget: Budget, now: Date): Promise<Take> {
  const [row] = await db
    .insert(attemptBudgets)
    .values({ kind: budget.kind, key: budget.key, taken: 1 })
    .onConflictDoUpdate({
      target: [attemptBudgets.kind, attemptBudgets.key],
      set: {
        taken: sql`CASE WHEN ${quiet(now)} THEN 1 ELSE ${attemptBudgets.taken} + 1 END`,
        lockLevel: sql`CASE WHEN ${quiet(now)} THEN 0 ELSE ${attemptBudgets.lockLevel} END`,
      },
      setWhere: sql`${notLocked(now)} AND CASE WHEN ${quiet(now)} THEN 0 ELSE ${attemptBudgets.taken} END < ${budget.policy.threshold}`,
    })
    .returning({ taken: attemptBudgets.taken });
  if (row !== undefined) return { taken: row.taken };
  const [state] = await db
    .select({ lockedUntil: attemptBudgets.lockedUntil })
    .from(attemptBudgets)
    .where(ofBudget(budget));
  const lockedUntil = state?.lockedUntil ?? null;
  return { lockedUntil: lockedUntil !== null && lockedUntil > now ? lockedUntil : null };
}

/** The lock duration of `lock_level` earlier locks, as `lockDurationMs` computes it. */
const lockDuration = sql`LEAST(${firstLockMs} * power(2, LEAST(${attemptBudgets.lockLevel}, 16)), ${longestLockMs}) * interval '1 millisecond'`;

/**
 * A unit's attempt failed. When the budget is used up, this failure locks it (one failure only:
 * the lock empties the budget); the answer says whether it did.
 */
export async function recordFailedAttempt(
  db: Database,
  budget: Budget,
  now: Date,
): Promise<{ lockedNow: false } | { lockedNow: true; lockedUntil: Date }> {
  const [locked] = await db
    .update(attemptBudgets)
    .set({
      taken: 0,
      lockLevel: sql`${attemptBudgets.lockLevel} + 1`,
      lockedUntil: sql`${timestamp(now)} + ${lockDuration}`,
      lastFailureAt: now,
    })
    .where(and(ofBudget(budget), gte(attemptBudgets.taken, budget.policy.threshold), notLocked(now)))
    .returning({ lockedUntil: attemptBudgets.lockedUntil });
  if (locked?.lockedUntil) return { lockedNow: true, lockedUntil: locked.lockedUntil };
  await db.update(attemptBudgets).set({ lastFailureAt: now }).where(ofBudget(budget));
  return { lockedNow: false };
}

/**
 * A unit's attempt succeeded: the run of failures ends when no attempt took a unit after this
 * one; otherwise only this unit is given back, so attempts still being judged stay paid for.
 */
export async function recordSucceededAttempt(db: Database, budget: Budget, taken: number): Promise<void> {
  await db
    .update(attemptBudgets)
    .set({
      taken: sql`CASE WHEN ${attemptBudgets.taken} = ${taken} THEN 0 ELSE GREATEST(${attemptBudgets.taken} - 1, 0) END`,
    })
    .where(ofBudget(budget));
}
