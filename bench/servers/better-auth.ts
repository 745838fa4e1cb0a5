import { createServer } from 'node:http';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { hash, verify } from '@node-rs/argon2';
import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import { toNodeHandler } from 'better-auth/node';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { productArgon2Options } from '../lib/argon2.ts';
import { peerUser } from '../lib/peer-user.ts';
import * as schema from './better-auth-schema.ts';

/**
 * The peer: Better Auth on the product's database kind, drivers and argon2id parameters (PGlite in
 * BA_DATA_DIR, or PostgreSQL at BA_DATABASE_URL). Its rate limiter is off: the product limits only
 * failures, and the benchmark sends none.
 */
const port = Number(process.env.PORT ?? 18_095);
const baseURL = `http://127.0.0.1:${port}`;

async function openDatabase() {
  const url = process.env.BA_DATABASE_URL;
  if (url !== undefined) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    await pool.query(schema.createTablesSql);
    return { db: drizzlePg(pool, { schema }), close: () => pool.end() };
  }
  const client = await PGlite.create(path.join(process.env.BA_DATA_DIR ?? './.better-auth', 'pglite'));
  await client.exec(schema.createTablesSql);
  return { db: drizzlePglite(client, { schema }), close: () => client.close() };
}

const database = await openDatabase();
const auth = betterAuth({
  baseURL,
  secret: process.env.BA_SECRET ?? 'a benchmark secret that is long enough',
  database: drizzleAdapter(database.db, { provider: 'pg', schema }),
  emailAndPassword: {
    enabled: true,
    password: {
      hash: (password) => hash(password, productArgon2Options),
      verify: ({ hash: stored, password }) => verify(stored, password),
    },
  },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const existing = await database.db.query.user.findFirst({
  where: (table, { eq }) => eq(table.email, peerUser.email),
});
if (existing === undefined) await auth.api.signUpEmail({ body: peerUser });

const server = createServer(toNodeHandler(auth));
server.listen(port, '127.0.0.1');

process.once('SIGTERM', () => {
  server.close(() => {
    void database.close().then(() => process.exit(0));
  });
});
