import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import { runPeriodically } from '../periodic.ts';
import { deleteLinkOpeningMarksBefore } from '../stores/audit-log.ts';
import { deleteOutboxMailSentBefore } from '../stores/mail-outbox.ts';
import { deleteSessionsEndedBefore } from '../stores/session-endings.ts';
import { deleteChallengesEndedBefore } from '../stores/webauthn-challenges.ts';

/**
 * How long an ended session and a sent mail are kept (decision record 006). The audit
 * log is the record of what happened; these rows only serve a refresh, a code check or a retry,
 * none of which can come after the session or the mail has ended.
 */
export const retentionDays = 30;
const retentionMs = retentionDays * 24 * 60 * 60_000;

/** Rows deleted per statement: each one is short, so sign-ins wait behind none of them for long. */
const pruneBatchSize = 1_000;

/** A link opening's mark is needed through the hour it was made in. */
const linkOpeningMarkMs = 60 * 60_000;

/** How often a server looks for rows past their retention. */
const pruneIntervalMs = 10 * 60_000;

export interface Pruned {
  sessions: number;
  sentMail: number;
  linkOpenings: number;
  webauthnChallenges: number;
}

/** Runs `deleteBatch` (up to `pruneBatchSize` rows each time) until a batch comes short; answers the total. */
async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(pruneBatchSize);
    total += deleted;
    if (deleted < pruneBatchSize) return total;
  }
}

/**
 * Deletes the sessions and sent mail that passed their retention at `now`, past link-opening
 * marks, and passkey challenges used or expired (nothing can answer them any more).
 */
export async function pruneExpiredRows(db: Database, now: Date): Promise<Pruned> {
  const cutoff = new Date(now.getTime() - retentionMs);
  // Sent mail's body (a code, a reset link) has no use left; only the current hour's marks decide.
  const marksCutoff = new Date(now.getTime() - linkOpeningMarkMs);
  return {
    sessions: await deleteInBatches((limit) => deleteSessionsEndedBefore(db, cutoff, limit)),
    sentMail: await deleteInBatches((limit) => deleteOutboxMailSentBefore(db, cutoff, limit)),
    linkOpenings: await deleteInBatches((limit) => deleteLinkOpeningMarksBefore(db, marksCutoff, limit)),
    webauthnChallenges: await deleteInBatches((limit) => deleteChallengesEndedBefore(db, now, limit)),
  };
}

/** Runs `pruneExpiredRows` every `pruneIntervalMs`; see `runPeriodically`. */
export function startPruning(
  db: Database,
  clock: Clock,
  onError: (error: Error) => void,
): () => Promise<void> {
  return runPeriodically(() => pruneExpiredRows(db, clock.now()), pruneIntervalMs, onError);
}
