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
  /**
   * Keys of the rows the writes change (e.g. `consumer:12`), for writes that refer to `locked`:
   * such a caller shares a statement only with callers that name none of the same rows, since two
   * changes of one row in one statement would keep only one of them.
   */
  readonly rows?: readonly string[];
}

/**
 * Several callers' `writesIfUnchanged` in one statement (`l0`, `w0_0`... for the first, `l1`,
 * `w1_0`... for the next; a write's `locked` becomes its caller's `l0`, `l1`...): one round trip
 * and one commit for all. When any caller's rows have changed, the statement fails as a
 * serialization failure and writes nothing for anyone.
 */
export function allWritesIfUnchanged(callers: readonly UnchangedWrites[]): StatementPart {
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
          ...writes.map(
            (text, write) => `w${index}_${write} AS (${text.replace(/\blocked\b/g, `l${index}`)})`,
          ),
        ];
      });
      const checks = counts.map(
        (_count, index) => `expect_unchanged((SELECT count(*) FROM l${index})) AS found${index}`,
      );
      return `WITH ${clauses.join(', ')} SELECT ${checks.join(', ')}`;
    },
  );
}

/** How `callsInTurns` runs the calls of one turn. */
export interface CallsInTurns<Call, Result> {
  /** Calls run together only with calls of the same shape: each number of calls of each shape is a statement text of its own. */
  shapeOf(call: Call): string;
  /** Keys of the rows a call changes: two calls that name one row never run together. */
  rowsOf(call: Call): readonly string[];
  /** Calls in one statement at most. */
  perStatement: number;
  /** Two or more calls in one statement: one result for each, in their order. */
  runTogether(calls: Call[]): Promise<Result[]>;
  runAlone(call: Call): Promise<Result>;
}

/**
 * Gathers the calls that come in the same turn of the event loop and runs those of one shape
 * together, `perStatement` at most and never two that change the same row: one round trip, one
 * commit and one wake-up of the database and of this thread for all. A joint statement that fails
 * wrote nothing, whatever failed: a serialization failure (a caller's rows changed), the end of a
 * deadlock with another joint statement (whose rows it may lock in another order), or an error
 * that one call's values caused. Each call then runs again on its own, so only the call whose rows
 * changed is refused, and only the call that caused an error gets it.
 */
export function callsInTurns<Call, Result>(
  options: CallsInTurns<Call, Result>,
): (call: Call) => Promise<Result> {
  type Gathered = { call: Call; resolve(result: Result): void; reject(error: unknown): void };
  type Batch = { items: Gathered[]; rows: Set<string> };
  const gathered: Gathered[] = [];
  const runEachAlone = (batch: Gathered[]) => {
    for (const item of batch) options.runAlone(item.call).then(item.resolve, item.reject);
  };
  const runTogether = async (batch: Gathered[]) => {
    if (batch.length === 1) return runEachAlone(batch);
    let results: Result[];
    try {
      results = await options.runTogether(batch.map((item) => item.call));
    } catch {
      return runEachAlone(batch);
    }
    for (const [index, item] of batch.entries()) item.resolve(results[index] as Result);
  };
  const flush = () => {
    const open = new Map<string, Batch[]>();
    const batches: Gathered[][] = [];
    for (const item of gathered.splice(0)) {
      const shape = options.shapeOf(item.call);
      const rows = options.rowsOf(item.call);
      const candidates = open.get(shape) ?? [];
      let batch = candidates.find(
        (candidate) =>
          candidate.items.length < options.perStatement && rows.every((row) => !candidate.rows.has(row)),
      );
      if (batch === undefined) {
        batch = { items: [], rows: new Set() };
        candidates.push(batch);
        open.set(shape, candidates);
        batches.push(batch.items);
      }
      batch.items.push(item);
      for (const row of rows) batch.rows.add(row);
    }
    for (const batch of batches) void runTogether(batch);
  };
  return (call) =>
    new Promise((resolve, reject) => {
      if (gathered.push({ call, resolve, reject }) === 1) setImmediate(flush);
    });
}

/** A statement that reads one row for each of several calls, each with `WITH` clauses of its own. */
export interface RowPerCall<Call> {
  /** The call's `WITH` clauses, their names ending in `index` so that calls can share a statement. */
  clausesOf(call: Call, index: number): StatementPart;
  /** The call's row: what follows `SELECT`, naming the call's own clauses. */
  rowOf(index: number): string;
  shapeOf(call: Call): string;
  rowsOf(call: Call): readonly string[];
  perStatement: number;
}

/**
 * Runs each call's clauses and reads its row, with the calls of one turn in one statement
 * (`callsInTurns`): `WITH <each call's clauses> SELECT 0 AS caller, <row 0> UNION ALL SELECT 1 ...`.
 * A call whose clauses find nothing to read gets undefined.
 */
export function rowPerCallInTurns<Call, Row>(
  db: Database,
  spec: RowPerCall<Call>,
): (call: Call) => Promise<Row | undefined> {
  const rowsOf = async (calls: Call[]) => {
    const part = joinParts(
      calls.map((call, index) => spec.clausesOf(call, index)),
      (texts) =>
        `WITH ${texts.join(', ')} ${texts.map((_text, index) => `SELECT ${index} AS caller, ${spec.rowOf(index)}`).join(' UNION ALL ')}`,
    );
    const rows = await executePart<Row & { caller: number }>(db, part);
    return calls.map((_call, index) => rows.find((row) => row.caller === index));
  };
  return callsInTurns<Call, Row | undefined>({
    shapeOf: spec.shapeOf,
    rowsOf: spec.rowsOf,
    perStatement: spec.perStatement,
    runTogether: rowsOf,
    runAlone: async (call) => (await rowsOf([call]))[0],
  });
}

/**
 * The `writesIfUnchanged` of callers that come in the same turn, written together
 * (`allWritesIfUnchanged`, by `callsInTurns`, at most `callersPerStatement` a statement): password
 * sign-ins that finish their hashes together commit together (decision record 017), and so do
 * lookup sign-ins (decision record 018). Writes that refer to `locked` of a caller that names no
 * `rows` run on their own at once.
 */
export function unchangedWritesInTurns(
  db: Database,
  callersPerStatement = 8,
): (caller: UnchangedWrites) => Promise<void> {
  const runAlone = async (caller: UnchangedWrites) => {
    await executePart(db, writesIfUnchanged(caller.expected, caller.writes));
  };
  const inTurns = callsInTurns<UnchangedWrites, void>({
    shapeOf: (caller) => [caller.expected, ...caller.writes].map((part) => part.text).join('\n'),
    rowsOf: (caller) => caller.rows ?? [],
    perStatement: callersPerStatement,
    async runTogether(callers) {
      await executePart(db, allWritesIfUnchanged(callers));
      return callers.map(() => undefined);
    },
    runAlone,
  });
  return (caller) =>
    caller.rows === undefined && caller.writes.some(refersToLocked) ? runAlone(caller) : inTurns(caller);
}

/** SQLSTATE 40001, as the driver reports it: the statement lost a race and wrote nothing. */
export function isSerializationFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '40001';
}
