import type { AuditEntry } from './audit.ts';

export interface AuditBatcher<Entry = AuditEntry> {
  /** Queues a row; the promise settles once the insert holding it has. */
  add(entry: Entry): Promise<void>;
  /** Rows queued and not yet written. */
  backlog(): number;
  /** Settles once every queued row has been written (or failed). */
  idle(): Promise<void>;
}

export interface AuditBatchOptions {
  /** Rows per insert at most. */
  maxBatch?: number;
}

/**
 * Writes audit rows in batches, one insert at a time: everything queued while an insert runs goes
 * into the next one. Used for link openings, which a mailing day produces at the rate of reads.
 */
export function createAuditBatcher<Entry = AuditEntry>(
  write: (entries: Entry[]) => Promise<void>,
  options: AuditBatchOptions = {},
): AuditBatcher<Entry> {
  const maxBatch = options.maxBatch ?? 500;
  const queue: { entry: Entry; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let flushing: Promise<void> | undefined;

  const flush = (): Promise<void> => {
    flushing ??= (async () => {
      while (queue.length > 0) {
        const batch = queue.splice(0, maxBatch);
        try {
          await write(batch.map((item) => item.entry));
          for (const item of batch) item.resolve();
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    })().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };

  return {
    add(entry) {
      const written = new Promise<void>((resolve, reject) => queue.push({ entry, resolve, reject }));
      void flush();
      return written;
    },
    backlog: () => queue.length,
    idle: () => flushing ?? Promise.resolve(),
  };
}
