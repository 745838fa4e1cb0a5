import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir, lockSocketName } from '../src/db/data-dir-lock.ts';
import { type Holder, startHolder } from './helpers/data-dir-holder.ts';

describe('the PGlite data directory is held by one process', () => {
  const dirs: string[] = [];
  const holders: Holder[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'entry-lock-'));
    dirs.push(dir);
    return dir;
  };
  const holding = async (dir: string, cwd?: string) => {
    const holder = await startHolder(dir, cwd);
    holders.push(holder);
    return holder;
  };
  afterEach(async () => {
    for (const holder of holders.splice(0)) {
      if (holder.child.exitCode === null && holder.child.signalCode === null) {
        holder.child.kill('SIGKILL');
        await holder.exited;
      }
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a directory that another running process holds, naming it and its pid', async () => {
    const dir = freshDir();
    const holder = await holding(dir);
    const refusal = lockDataDir(dir);
    await expect(refusal).rejects.toThrow(DataDirInUseError);
    await expect(refusal).rejects.toThrow(
      `The data directory ${dir} is in use by another process (pid ${holder.pid})`,
    );
  });

  it('refuses a second lock in the holding process too, and is free again once released', async () => {
    const dir = freshDir();
    const lock = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(`in use by another process (pid ${process.pid})`);
    lock.release();
    expect(existsSync(path.join(dir, lockSocketName))).toBe(false);
    (await lockDataDir(dir)).release();
  });

  it('is free once its holder has ended normally', async () => {
    const dir = freshDir();
    const holder = await holding(dir);
    holder.child.stdin?.end();
    await holder.exited;
    (await lockDataDir(dir)).release();
  });

  it('takes over the socket of a holder killed with SIGKILL', async () => {
    const dir = freshDir();
    const holder = await holding(dir);
    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(existsSync(path.join(dir, lockSocketName))).toBe(true);

    const lock = await lockDataDir(dir);
    try {
      // And it holds the directory now: a further process is refused.
      await expect(holding(dir)).rejects.toThrow(`in use by another process (pid ${process.pid})`);
    } finally {
      lock.release();
    }
  });

  it('ignores a lock file naming the pid of a live, unrelated process', async () => {
    const dir = freshDir();
    const unrelated = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(path.join(dir, 'pglite.lock'), String(unrelated.pid));
      (await lockDataDir(dir)).release();
    } finally {
      unrelated.kill();
    }
  });

  it('locks a directory whose socket path is longer than a Unix socket allows', async () => {
    const dir = path.join(freshDir(), 'a-directory-name-of-some-length'.repeat(4));
    mkdirSync(dir);
    expect(Buffer.byteLength(path.join(dir, lockSocketName))).toBeGreaterThan(108);

    // Started far from the directory, a holder binds it through /proc.
    const far = await holding(dir);
    expect(far.socketPath).toMatch(/^\/proc\/self\/fd\/\d+\/pglite\.sock$/);
    expect(existsSync(path.join(dir, lockSocketName))).toBe(true);
    // Started in it, a process uses the short relative path: the same socket.
    await expect(holding(dir, dir)).rejects.toThrow(`(pid ${far.pid})`);
    far.child.kill('SIGKILL');
    await far.exited;

    const near = await holding(dir, dir);
    expect(near.socketPath).toBe(lockSocketName);
    await expect(lockDataDir(dir)).rejects.toThrow(`(pid ${near.pid})`);
    near.child.stdin?.end();
    await near.exited;
    (await lockDataDir(dir)).release();
  });
});
