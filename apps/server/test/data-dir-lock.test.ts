import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from '../src/db/data-dir-lock.ts';

describe('the PGlite data directory is held by one process', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'entry-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a directory that a running process holds, naming it and the pid', async () => {
    const dir = freshDir();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(path.join(dir, 'pglite.lock'), String(other.pid));
      expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
      expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by another process \\(pid ${other.pid}\\)`));
    } finally {
      other.kill();
    }
  });

  it('takes over a lock left by a process that has ended, and releases it', () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, 'pglite.lock'), '999999999');
    const release = lockDataDir(dir);
    release();
    lockDataDir(dir)();
  });
});
