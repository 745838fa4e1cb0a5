/**
 * A process that holds the data directory named by its argument and says so on stdout with one JSON
 * line (`{ pid, socketPath }`), until its stdin closes or it is killed. Started by `startHolder`.
 */
import { lockDataDir } from '../../src/db/data-dir-lock.ts';

const lock = await lockDataDir(process.argv[2] ?? '');
process.stdout.write(`${JSON.stringify({ pid: process.pid, socketPath: lock.socketPath })}\n`);
process.stdin.on('end', () => lock.release());
process.stdin.resume();
