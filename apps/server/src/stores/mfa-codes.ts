import type { Language } from '@entry/domain';
import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { rowsInsert } from '../db/rows-insert.ts';
import { mfaCodes, sessions } from '../db/schema.ts';
import { type StatementPart, sqlOf } from '../db/sql.ts';

/** A code as stored: only its keyed hash, bound to its session. */
export interface StoredCode {
  sessionId: string;
  codeHash: string;
  createdAt: Date;
  expiresAt: Date;
  /** The language of the page the pending sign-in came from, when it named one. */
  language: Language | null;
}

/**
 * The insert of a code, not yet run. A new session's first code goes into the session's own
 * statement (it has no earlier code to void).
 */
export function mfaCodeInsert(code: StoredCode): StatementPart {
  return codeInsert([code]);
}

const codeInsert = rowsInsert(mfaCodes, ['sessionId', 'codeHash', 'expiresAt', 'createdAt', 'language']);

/**
 * Replaces the session's code with `code`, voiding the earlier one, unless the latest code was
 * made after `notBefore`: then answers when it was made. A code without a language keeps the
 * earlier code's. The session row is locked, so parallel
 * replacements make at most one code.
 */
export async function replaceCodeUnlessRecent(
  db: Database,
  code: StoredCode,
  notBefore: Date,
): Promise<{ replaced: true } | { latestAt: Date }> {
  return db.transaction(async (tx) => {
    await tx.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, code.sessionId)).for('update');
    const [latest] = await tx
      .select({ createdAt: mfaCodes.createdAt, language: mfaCodes.language })
      .from(mfaCodes)
      .where(eq(mfaCodes.sessionId, code.sessionId))
      .orderBy(desc(mfaCodes.id))
      .limit(1);
    if (latest !== undefined && latest.createdAt.getTime() > notBefore.getTime()) {
      return { latestAt: latest.createdAt };
    }
    await tx
      .update(mfaCodes)
      .set({ usedAt: code.createdAt })
      .where(and(eq(mfaCodes.sessionId, code.sessionId), isNull(mfaCodes.usedAt)));
    await tx.execute(sqlOf(mfaCodeInsert({ ...code, language: code.language ?? latest?.language ?? null })));
    return { replaced: true };
  });
}

/**
 * Takes one of the session's current code's tries, in one conditional statement, so parallel
 * guesses on any instance get no more between them: the code's id and hash to compare, or
 * undefined when it has none left (used, expired or out of tries).
 */
export async function takeCodeTry(
  db: Database,
  sessionId: string,
  now: Date,
  maxTries: number,
): Promise<{ id: number; codeHash: string; attempts: number; language: Language | null } | undefined> {
  const [attempt] = await db
    .update(mfaCodes)
    .set({ attempts: sql`${mfaCodes.attempts} + 1` })
    .where(
      and(
        eq(mfaCodes.sessionId, sessionId),
        isNull(mfaCodes.usedAt),
        gt(mfaCodes.expiresAt, now),
        lt(mfaCodes.attempts, maxTries),
      ),
    )
    .returning({
      id: mfaCodes.id,
      codeHash: mfaCodes.codeHash,
      attempts: mfaCodes.attempts,
      language: mfaCodes.language,
    });
  return attempt;
}

/** Marks a code used, in a conditional UPDATE: only one caller can use it. */
export async function useCode(db: Database, codeId: number, now: Date): Promise<boolean> {
  const [used] = await db
    .update(mfaCodes)
    .set({ usedAt: now })
    .where(and(eq(mfaCodes.id, codeId), isNull(mfaCodes.usedAt)))
    .returning({ id: mfaCodes.id });
  return used !== undefined;
}
