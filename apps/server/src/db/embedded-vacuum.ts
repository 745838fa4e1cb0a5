import { sql } from 'drizzle-orm';
import { runPeriodically } from '../periodic.ts';
import type { Database } from './database.ts';
import { executeRows } from './sql.ts';

/**
 * PGlite runs PostgreSQL as one backend, without the autovacuum launcher: left alone, the dead rows
 * of every update and delete (a refresh rotates a token, a sign-in writes its link's last use, a
 * sent mail leaves the pending index) stay in the tables and their indexes for good, the planner
 * never gets statistics for imported rows, and nothing freezes old rows before transaction ids
 * wrap around. So the server does what autovacuum would, every `embeddedVacuumIntervalMs`.
 */
const embeddedVacuumIntervalMs = 60_000;

interface TableDue {
  name: string;
  vacuum: boolean;
  analyze: boolean;
}

/** One of the server's autovacuum settings (PGlite keeps PostgreSQL's defaults). */
const setting = (name: string) => sql.raw(`current_setting('${name}')::float8`);

/**
 * Decides as autovacuum does, with its settings: a table is vacuumed when its dead rows, or the rows
 * inserted since its last vacuum (an append-only table such as the audit log), pass their threshold
 * plus a share of its live rows, or when its oldest unfrozen transaction id is old enough that
 * PostgreSQL would vacuum it against wraparound; it is analysed when the rows changed since its last
 * analysis pass theirs. Returns the tables it processed.
 */
export async function vacuumWhereDue(db: Database): Promise<string[]> {
  const tables = await executeRows<TableDue>(
    db,
    sql`SELECT s.relname AS name,
        (s.n_dead_tup > ${setting('autovacuum_vacuum_threshold')}
            + ${setting('autovacuum_vacuum_scale_factor')} * s.n_live_tup
          OR s.n_ins_since_vacuum > ${setting('autovacuum_vacuum_insert_threshold')}
            + ${setting('autovacuum_vacuum_insert_scale_factor')} * s.n_live_tup
          OR age(c.relfrozenxid) > ${setting('autovacuum_freeze_max_age')}) AS vacuum,
        s.n_mod_since_analyze > ${setting('autovacuum_analyze_threshold')}
          + ${setting('autovacuum_analyze_scale_factor')} * s.n_live_tup AS analyze
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname = 'public' ORDER BY s.relname`,
  );
  const due = tables.filter((table) => table.vacuum || table.analyze);
  for (const table of due) {
    const command = table.vacuum ? 'VACUUM (ANALYZE)' : 'ANALYZE';
    await db.execute(sql.raw(`${command} "${table.name.replaceAll('"', '""')}"`));
  }
  return due.map((table) => table.name);
}

/** Runs `vacuumWhereDue` every `embeddedVacuumIntervalMs`; see `runPeriodically`. */
export function startEmbeddedVacuum(db: Database, onError: (error: Error) => void): () => Promise<void> {
  return runPeriodically(() => vacuumWhereDue(db), embeddedVacuumIntervalMs, onError);
}
