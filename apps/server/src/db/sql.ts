import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { type Database, executeStatement, plannedEachTime, statement } from './database.ts';

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

/** A timestamp of a raw row as either driver answers it: a Date, or its text. */
export const dateOrNull = (value: Date | string | null): Date | null =>
  value === null ? null : new Date(value);

/**
 * A statement, or a piece of one, written as a template (`sqlPart`): fixed texts with a value
 * between each two. Pieces join by their texts, so a statement of fixed pieces has one text for
 * each shape, numbered `$1`, `$2`... only when it runs, prepared once per connection, and no query
 * builder runs per request (decision record 007). Values are strings, numbers, booleans or null,
 * each cast in the text (a JSON value as `::text::jsonb`, which both drivers pass as text).
 */
export class StatementPart {
  constructor(
    readonly texts: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The text with its placeholders numbered from one: the text the database gets. */
  get text(): string {
    let text = this.texts[0] ?? '';
    for (let index = 1; index < this.texts.length; index++) text += `$${index}${this.texts[index]}`;
    return text;
  }
}

/**
 * `sqlPart\`UPDATE t SET n = ${n}::integer WHERE id = ${id}::bigint\``: each value a placeholder,
 * never interpolated; a `StatementPart` among the values is spliced in, its values numbered on.
 */
export function sqlPart(strings: TemplateStringsArray, ...pieces: unknown[]): StatementPart {
  const texts = [strings[0] ?? ''];
  const values: unknown[] = [];
  pieces.forEach((piece, index) => {
    const following = strings[index + 1] ?? '';
    if (piece instanceof StatementPart) {
      texts[texts.length - 1] += piece.texts[0] ?? '';
      texts.push(...piece.texts.slice(1));
      values.push(...piece.values);
      texts[texts.length - 1] += following;
    } else {
      values.push(piece);
      texts.push(following);
    }
  });
  return new StatementPart(texts, values);
}

/** A text of the program's own (a name, a keyword), never a value: spliced into a `sqlPart` as it is. */
export const fixedText = (text: string): StatementPart => new StatementPart([text], []);

/** `parts` one after the other, with `separator` between each two. */
function joinedParts(parts: readonly StatementPart[], separator: string): StatementPart {
  return parts.reduce(
    (joined, part, index) => (index === 0 ? part : sqlPart`${joined}${fixedText(separator)}${part}`),
    fixedText(''),
  );
}

/** Runs `part` as a named statement of its text: its values stay parameters, and each shape gets its own name. */
export function executePart<Row>(db: Database, part: StatementPart): Promise<Row[]> {
  return executeStatement<Row>(db, statement(part.text), [...part.values]);
}

/** Runs `part` unnamed, planned for its values on each run (`plannedEachTime`). */
export function executePlannedEachTime<Row>(db: Database, part: StatementPart): Promise<Row[]> {
  return executeStatement<Row>(db, plannedEachTime(part.text), [...part.values]);
}

/** A part as drizzle's SQL, for a statement inside a drizzle transaction. */
export function sqlOf(part: StatementPart): SQL {
  return sql.join(
    part.texts.flatMap((text, index) =>
      index === 0 ? [sql.raw(text)] : [sql`${part.values[index - 1] ?? null}`, sql.raw(text)],
    ),
  );
}

/** `parts` as the clauses `w0 AS (...), w1 AS (...)` of a `WITH`. */
const writeClauses = (parts: readonly StatementPart[], prefix = 'w') =>
  joinedParts(
    parts.map((part, index) => sqlPart`${fixedText(`${prefix}${index}`)} AS (${part})`),
    ', ',
  );

/**
 * `main` with `writes` run in the same statement as data-modifying `WITH` clauses (`w0`, `w1`,
 * ...): everything commits together, in one round trip. All parts see one snapshot, so `main`
 * does not see the rows the writes add.
 */
export function withWrites(writes: readonly StatementPart[], main: StatementPart): StatementPart {
  if (writes.length === 0) return main;
  return sqlPart`WITH ${writeClauses(writes)} ${main}`;
}

/** `writes` as one statement that reads nothing: they commit together, in one round trip. */
export const writesTogether = (writes: readonly StatementPart[]): StatementPart =>
  withWrites(writes, fixedText('SELECT true AS written'));

/**
 * Writes decided on rows read earlier without a lock, to run only if those rows are still as read:
 * `expected` selects them again by the values the decision rests on, locking them with
 * `FOR UPDATE` when `changes` change them. Each change (an UPDATE ending in its WHERE clause) runs
 * only once `expected` has found its rows, so they are locked and checked before they change;
 * `additions` only add rows and need no lock. When `expected` finds no row, the statement fails as
 * a serialization failure (see `isSerializationFailure`) and writes nothing, its additions
 * included: the caller then decides again under a lock. One round trip, and no transaction held
 * open while the application decides.
 */
export interface UnchangedWrites {
  readonly expected: StatementPart;
  readonly changes: readonly StatementPart[];
  readonly additions: readonly StatementPart[];
  /**
   * Keys of the rows the changes change (e.g. `consumer:12`): such a caller shares a statement
   * only with callers that name none of the same rows, since two changes of one row in one
   * statement would keep only one of them.
   */
  readonly rows?: readonly string[];
}

/** One caller's clauses: `l<index>` finds the expected rows, `w<index>_<n>` write. */
function unchangedClauses(caller: UnchangedWrites, index: number): StatementPart {
  const found = fixedText(`l${index}`);
  const writes = [
    ...caller.changes.map((change) => sqlPart`${change} AND EXISTS (SELECT 1 FROM ${found})`),
    ...caller.additions,
  ];
  return sqlPart`${found} AS (${caller.expected}), ${writeClauses(writes, `w${index}_`)}`;
}

/**
 * Several callers' `UnchangedWrites` in one statement: one round trip and one commit for all.
 * When any caller's rows have changed, the statement fails as a serialization failure and writes
 * nothing for anyone.
 */
export function writesIfUnchanged(callers: readonly UnchangedWrites[]): StatementPart {
  const checks = callers.map(
    (_caller, index) => `expect_unchanged((SELECT count(*) FROM l${index})) AS found${index}`,
  );
  return sqlPart`WITH ${joinedParts(callers.map(unchangedClauses), ', ')} SELECT ${fixedText(checks.join(', '))}`;
}

/** How `batchedByTurn` runs the calls of one turn. */
export interface BatchedByTurn<Call, Result> {
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
export function batchedByTurn<Call, Result>(
  options: BatchedByTurn<Call, Result>,
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
 * (`batchedByTurn`): `WITH <each call's clauses> SELECT 0 AS caller, <row 0> UNION ALL SELECT 1 ...`.
 * A call whose clauses find nothing to read gets undefined.
 */
export function rowPerCallBatchedByTurn<Call, Row>(
  db: Database,
  spec: RowPerCall<Call>,
): (call: Call) => Promise<Row | undefined> {
  const rowsOf = async (calls: Call[]) => {
    const clauses = joinedParts(
      calls.map((call, index) => spec.clausesOf(call, index)),
      ', ',
    );
    const reads = calls.map((_call, index) => `SELECT ${index} AS caller, ${spec.rowOf(index)}`);
    const part = sqlPart`WITH ${clauses} ${fixedText(reads.join(' UNION ALL '))}`;
    const rows = await executePart<Row & { caller: number }>(db, part);
    return calls.map((_call, index) => rows.find((row) => row.caller === index));
  };
  return batchedByTurn<Call, Row | undefined>({
    shapeOf: spec.shapeOf,
    rowsOf: spec.rowsOf,
    perStatement: spec.perStatement,
    runTogether: rowsOf,
    runAlone: async (call) => (await rowsOf([call]))[0],
  });
}

/**
 * The `UnchangedWrites` of callers that come in the same turn, written together (by
 * `batchedByTurn`, at most `callersPerStatement` a statement): lookup sign-ins that finish
 * together commit together (decision record 018). A caller with changes that names no `rows`
 * runs on its own at once.
 */
export function unchangedWritesBatchedByTurn(
  db: Database,
  callersPerStatement = 8,
): (caller: UnchangedWrites) => Promise<void> {
  const runAlone = async (caller: UnchangedWrites) => {
    await executePart(db, writesIfUnchanged([caller]));
  };
  // A caller's shape is the texts of its parts, read without building its statement, which is
  // built once, when it runs.
  const textsOf = (parts: readonly StatementPart[]) => parts.map((part) => part.texts.join('$')).join('\n');
  const shapeOf = (caller: UnchangedWrites) =>
    `${textsOf([caller.expected, ...caller.changes])}\n--\n${textsOf(caller.additions)}`;
  const inTurns = batchedByTurn<UnchangedWrites, void>({
    shapeOf,
    rowsOf: (caller) => caller.rows ?? [],
    perStatement: callersPerStatement,
    async runTogether(callers) {
      await executePart(db, writesIfUnchanged(callers));
      return callers.map(() => undefined);
    },
    runAlone,
  });
  return (caller) =>
    caller.rows === undefined && caller.changes.length > 0 ? runAlone(caller) : inTurns(caller);
}

/** SQLSTATE 40001, as the driver reports it: the statement lost a race and wrote nothing. */
export function isSerializationFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '40001';
}
