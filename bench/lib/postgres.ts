import pg from 'pg';

/** The PostgreSQL server the benchmarks use (BENCH_POSTGRES_URL); each run gets databases of its own. */
const postgresServerUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function databaseUrl(name: string): string {
  const url = new URL(postgresServerUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops (disconnecting anyone left on it) and creates the database `name`: only bench_* names. */
export async function recreateDatabase(name: string): Promise<string> {
  if (!/^bench_[a-z0-9_]+$/.test(name)) throw new Error(`refusing to recreate database ${name}`);
  const client = new pg.Client({ connectionString: postgresServerUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return databaseUrl(name);
}
