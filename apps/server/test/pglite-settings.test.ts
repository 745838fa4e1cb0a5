import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, pgliteSharedBuffers } from '../src/db/index.ts';

describe('the embedded PGlite database', () => {
  it('runs with the small buffer cache that keeps the server process small', async () => {
    const handle = await openDatabase({
      databaseUrl: undefined,
      dataDir: mkdtempSync(path.join(tmpdir(), 'entry-pglite-settings-')),
    });
    try {
      // Both drivers answer raw SQL with `{ rows }`; the shared database type leaves it unknown.
      const result = (await handle.db.execute(sql`SHOW shared_buffers`)) as {
        rows: { shared_buffers: string }[];
      };
      expect(result.rows[0]?.shared_buffers).toBe(pgliteSharedBuffers);
    } finally {
      await handle.close();
    }
  });
});
