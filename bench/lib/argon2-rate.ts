import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { hash } from '@node-rs/argon2';
import { productArgon2Options } from './argon2.ts';

/** Runs in each worker: synchronous verifies until the deadline or the count cap, then the count. */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { verifySync } = require(workerData.modulePath);
const deadline = Date.now() + workerData.milliseconds;
let count = 0;
while (Date.now() < deadline && count < workerData.maxCount) {
  if (!verifySync(workerData.hash, workerData.password)) throw new Error('verify failed');
  count += 1;
}
parentPort.postMessage(count);
`;

/**
 * The raw argon2id verify rate at the product's parameters, with `workers` threads verifying at
 * once (one per core on this machine): the ceiling of any password sign-in.
 */
export async function argon2VerifyRate(workers: number, seconds: number): Promise<number> {
  const password = 'a password for measuring the verify rate';
  const stored = await hash(password, productArgon2Options);
  const modulePath = createRequire(import.meta.url).resolve('@node-rs/argon2');
  const milliseconds = seconds * 1000;
  const started = performance.now();
  const counts = await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(workerSource, {
            eval: true,
            workerData: { modulePath, hash: stored, password, milliseconds, maxCount: 100_000 },
          });
          worker.once('message', (count: number) => resolve(count));
          worker.once('error', reject);
        }),
    ),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  return Math.round(counts.reduce((sum, count) => sum + count, 0) / elapsedSeconds);
}
