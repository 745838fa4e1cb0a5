import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { type Database, executeStatement, statement } from './index.ts';

/**
 * The rows a raw statement returns. Both drivers answer with `{ rows }` (node-postgres'
 * QueryResult, PGlite's Results), which drizzle's driver-neutral type leaves unknown.
 */
export async function executeRows<Row>(db: Database, query: SQLWrapper): Promise<Row[]> {
  const result: unknown = await db.execute(query);
  if (typeof result !== 'object' || result === null || !('rows' in result) || !Array.isArray(result.rows)) {
    throw new Error('The database driver returned no rows array');
  }
  return result.rows as Row[];
}

/**
 * A piece of a statement with a fixed text, whose values its placeholders number `$1`, `$2`...
 * from one. Parts join by their texts (`withWrites`, `writesIfUnchanged`), so a statement of fixed
 * parts has one text for each shape, prepared once per connection, and no query builder runs per
 * request: drizzle serialising the builders of a lookup sign-in's writes was a fifth of the
 * server's CPU per sign-in. Values are strings, numbers, booleans or null, each placeholder cast
 * in the text (a JSON value as `$n::text::jsonb`, which both drivers pass as text).
 */
export interface StatementPart {
  readonly text: string;
  readonly values: readonly unknown[];
}

const dialect = new PgDialect();

/** A drizzle query or `sql` template as a part: built on each call, for paths where that costs nothing that matters. */
export function partOf(query: SQLWrapper): StatementPart {
  const { sql: text, params } = dialect.sqlToQuery(query.getSQL());
  return { text, values: params };
}

/** Runs `part` as a named statement of its text: its values stay parameters, and each shape gets its own name. */
export function executePart<Row>(db: Database, part: StatementPart): Promise<Row[]> {
  return executeStatement<Row>(db, statement(part.text), [...part.values]);
}

/** A part as drizzle's SQL, for a statement inside a drizzle transaction. */
export function sqlOf(part: StatementPart): SQL {
  const pieces = part.text.split(/\$(\d+)/);
  return sql.join(
    pieces.map((piece, index) =>
      index % 2 === 0 ? sql.raw(piece) : sql`${part.values[Number(piece) - 1] ?? null}`,
    ),
  );
}

/** `parts` in one statement: `compose` gets their texts, the placeholders of each numbered on after the one before. */
function joinParts(parts: readonly StatementPart[], compose: (texts: string[]) => string): StatementPart {
  const values: unknown[] = [];
  const texts = parts.map((part) => {
    const offset = values.length;
    values.push(...part.values);
    return offset === 0
      ? part.text
      : part.text.replace(/\$(\d+)/g, (_placeholder, number: string) => `$${Number(number) + offset}`);
  });
  return { text: compose(texts), values };
}

/** `texts` as the clauses `w0 AS (...), w1 AS (...)` of a `WITH`. */
const writeClauses = (texts: readonly string[]) =>
  texts.map((text, index) => `w${index} AS (${text})`).join(', ');

/** The main query of a `withWrites` statement that only writes. */
export const noRead: StatementPart = { text: 'SELECT true AS written', values: [] };

/**
 * `main` with `writes` run in the same statement as data-modifying `WITH` clauses (`w0`, `w1`,
 * ...): everything commits together, in one round trip. All parts see one snapshot, so `main`
 * does not see the rows the writes add.
 */
export function withWrites(writes: readonly StatementPart[], main: StatementPart): StatementPart {
  if (writes.length === 0) return main;
  return joinParts([...writes, main], (texts) => {
    const mainText = texts.pop();
    return `WITH ${writeClauses(texts)} ${mainText}`;
  });
}

/**
 * `writes` (as in `withWrites`) that were decided on rows read earlier without a lock, to run only
 * if those rows are still as read: `expected` selects them again by the values the decision rests
 * on, locking them with `FOR UPDATE` when the writes change them. Writes that touch those rows must
 * then refer to `locked` (`EXISTS (SELECT 1 FROM locked)`), so the rows are locked and checked
 * before they change; writes that only add rows need no lock. When `expected` finds no row,
 * the statement fails as a serialization failure (see `isSerializationFailure`) and writes nothing,
 * its inserts included: the caller then decides again under a lock. One round trip and no
 * transaction held open while the application decides.
 */
export function writesIfUnchanged(expected: StatementPart, writes: readonly StatementPart[]): StatementPart {
  return joinParts(
    [expected, ...writes],
    ([locked, ...texts]) =>
      `WITH locked AS (${locked}), ${writeClauses(texts)} SELECT expect_unchanged((SELECT count(*) FROM locked)) AS found`,
  );
}

/** Whether a part refers to the `locked` rows of its `writesIfUnchanged` statement. */
const refersToLocked = (part: StatementPart) => /\blocked\b/.test(part.text);

/** One caller's `writesIfUnchanged`: the rows its decision rests on, and its writes. */
export interface UnchangedWrites {
  readonly expected: StatementPart;
  readonly writes: readonly StatementPart[];
}

/**
 * Several callers' `writesIfUnchanged` in one statement (`l0`, `w0_0`... for the first, `l1`,
 * `w1_0`... for the next): one round trip and one commit for all. When any caller's rows have
 * changed, the statement fails as a serialization failure and writes nothing for anyone. Writes
 * that refer to `locked` cannot join one (each caller's rows have a name of their own).
 */
export function allWritesIfUnchanged(callers: readonly UnchangedWrites[]): StatementPart {
  if (callers.some((caller) => caller.writes.some(refersToLocked))) {
    throw new Error('Writes that refer to `locked` run in a statement of their own');
  }
  const counts = callers.map((caller) => caller.writes.length);
  return joinParts(
    callers.flatMap((caller) => [caller.expected, ...caller.writes]),
    (texts) => {
      let next = 0;
      const clauses = counts.flatMap((count, index) => {
        const [expected, ...writes] = texts.slice(next, next + count + 1);
        next += count + 1;
        return [
          `l${index} AS (${expected})`,
          ...writes.map((text, write) => `w${index}_${write} AS (${text})`),
        ];
      });
      const checks = counts.map(
        (_count, index) => `expect_unchanged((SELECT count(*) FROM l${index})) AS found${index}`,
      );
      return `WITH ${clauses.join(', ')} SELECT ${checks.join(', ')}`;
    },
  );
}

/** Callers written together at most: each number of callers is a statement of its own text. */
const callersPerStatement = 8;

/**
 * Gathers the `writesIfUnchanged` of callers that come in the same turn of the event loop and
 * writes them in one statement (`allWritesIfUnchanged`): password sign-ins that finish their hashes
 * together commit together, one wake-up of the database and of this thread for both (decision
 * record 017). When the joint statement fails as a serialization failure, each caller's writes run
 * again on their own, so only the caller whose rows changed is refused; any other error fails them
 * all. Writes that refer to `locked` run on their own at once.
 */
export function unchangedWritesInTurns(db: Database): (caller: UnchangedWrites) => Promise<void> {
  type Gathered = { caller: UnchangedWrites; resolve(): void; reject(error: unknown): void };
  const gathered: Gathered[] = [];
  const runAlone = async (caller: UnchangedWrites) => {
    await executePart(db, writesIfUnchanged(caller.expected, caller.writes));
  };
  const writeTogether = async (batch: Gathered[]) => {
    if (batch.length > 1) {
      try {
        await executePart(db, allWritesIfUnchanged(batch.map((item) => item.caller)));
        for (const item of batch) item.resolve();
        return;
      } catch (error) {
        if (!isSerializationFailure(error)) {
          for (const item of batch) item.reject(error);
          return;
        }
      }
    }
    for (const item of batch) runAlone(item.caller).then(item.resolve, item.reject);
  };
  const flush = () => {
    while (gathered.length > 0) void writeTogether(gathered.splice(0, callersPerStatement));
  };
  return (caller) => {
    if (caller.writes.some(refersToLocked)) return runAlone(caller);
    return new Promise((resolve, reject) => {
      if (gathered.push({ caller, resolve, reject }) === 1) setImmediate(flush);
    });
  };
}

/** SQLSTATE 40001, as the driver reports it: the statement lost a race and wrote nothing. */
export function isSerializationFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '40001';
}
