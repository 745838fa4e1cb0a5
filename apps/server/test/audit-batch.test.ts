import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../src/services/audit.ts';
import { createAuditBatcher } from '../src/services/audit-batch.ts';

const opening = (n: number): AuditEntry => ({
  event: 'consumer.link.opened',
  outcome: 'success',
  actor: `consumer:${n}`,
});

/** A write whose inserts the test finishes one by one. */
function controlledWrite() {
  const inserts: { actors: (string | null | undefined)[]; finish: (error?: Error) => void }[] = [];
  const write = (entries: AuditEntry[]) =>
    new Promise<void>((resolve, reject) => {
      inserts.push({
        actors: entries.map((entry) => entry.actor),
        finish: (error) => (error === undefined ? resolve() : reject(error)),
      });
    });
  return { inserts, write };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createAuditBatcher', () => {
  it('writes the rows queued during an insert together in the next one, one insert at a time', async () => {
    const { inserts, write } = controlledWrite();
    const batcher = createAuditBatcher(write);
    const first = batcher.add(opening(1));
    const later = [2, 3, 4].map((n) => batcher.add(opening(n)));
    await settle();
    expect(inserts.map((insert) => insert.actors)).toEqual([['consumer:1']]);
    expect(batcher.backlog()).toBe(3);
    inserts[0]?.finish();
    await first;
    await settle();
    expect(inserts.map((insert) => insert.actors)).toEqual([
      ['consumer:1'],
      ['consumer:2', 'consumer:3', 'consumer:4'],
    ]);
    inserts[1]?.finish();
    await Promise.all(later);
    await batcher.idle();
    expect(batcher.backlog()).toBe(0);
  });

  it('puts at most maxBatch rows in one insert', async () => {
    const { inserts, write } = controlledWrite();
    const batcher = createAuditBatcher(write, { maxBatch: 2 });
    const all = [1, 2, 3, 4, 5].map((n) => batcher.add(opening(n)));
    for (let round = 0; round < 3; round += 1) {
      await settle();
      inserts[round]?.finish();
    }
    await Promise.all(all);
    expect(inserts.map((insert) => insert.actors.length)).toEqual([1, 2, 2]);
  });

  it('fails the rows of a failed insert and still writes the next ones', async () => {
    const { inserts, write } = controlledWrite();
    const batcher = createAuditBatcher(write);
    const failed = batcher.add(opening(1));
    const next = batcher.add(opening(2));
    await settle();
    inserts[0]?.finish(new Error('database gone'));
    await expect(failed).rejects.toThrow('database gone');
    await settle();
    inserts[1]?.finish();
    await expect(next).resolves.toBeUndefined();
  });
});
