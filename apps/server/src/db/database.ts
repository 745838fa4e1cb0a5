/**
 * The database handle's type and its raw statements, apart from `index.ts`, which opens the handle:
 * the files `index.ts` imports (the statement helpers, the embedded vacuum) import this one, and
 * no circle of imports runs through `index.ts`.
 */
import { createHash } from 'node:crypto';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.ts';

/** The one database type the services use, whichever driver is underneath. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * A raw statement with a fixed text. On PostgreSQL a named one is parsed and planned once per
 * connection (node-postgres keeps it by name), instead of on every call; `name` is undefined when
 * the statement runs unnamed.
 */
export interface Statement {
  readonly name: string | undefined;
  readonly text: string;
}

/**
 * Every named statement stays prepared on every pooled connection for the connection's life, so
 * their number must stay bounded whatever builds them: past this many distinct texts, a new text
 * runs unnamed (planned each time, as before).
 */
export const maxNamedStatements = 64;
const namedTexts = new Map<string, Statement>();

/**
 * The statement for `text`, named after a hash of it: the same text always gets the same name, so
 * a name never meets two texts (node-postgres refuses that), and statements whose shape varies
 * (optional writes in one CTE) get one name per shape.
 */
export function statement(text: string): Statement {
  const known = namedTexts.get(text);
  if (known !== undefined) return known;
  if (namedTexts.size >= maxNamedStatements) return { name: undefined, text };
  const named = { name: `entry_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
  namedTexts.set(text, named);
  return named;
}

/**
 * A statement never prepared: the database plans it for the values of each run. For the few whose
 * best plan depends on how full a table is, where a plan kept from an emptier table would read it
 * all (the outbox's claim and marks).
 */
export const plannedEachTime = (text: string): Statement => ({ name: undefined, text });

type StatementRunner = (statement: Statement, values: unknown[]) => Promise<unknown[]>;
/** How each handle opened by `openDatabase` runs a raw statement on its driver (drizzle has no named raw statements). */
const runners = new WeakMap<Database, StatementRunner>();

/** Makes `run` the way `executeStatement` runs raw statements on `db`; `openDatabase` calls it once per handle. */
export function runStatementsWith(db: Database, run: StatementRunner): void {
  runners.set(db, run);
}

/** Runs `statement` with `values` as its parameters ($1, $2, ...), never interpolated. */
export async function executeStatement<Row>(
  db: Database,
  statement: Statement,
  values: unknown[],
): Promise<Row[]> {
  const run = runners.get(db);
  if (run === undefined) throw new Error('The database handle was not opened by openDatabase');
  return (await run(statement, values)) as Row[];
}
