/**
 * What the server's thread asks the embedded database's thread (pglite-worker.ts); the answers are
 * `ThreadReply`s (thread-calls.ts), and the reply of id 0 answers the start.
 */

export interface PgliteThreadOptions {
  path: string;
  postgresqlconf: string[];
}

export type PgliteRequest =
  | {
      id: number;
      op: 'query';
      text: string;
      params: unknown[] | undefined;
      rowMode: 'array' | 'object' | undefined;
      /** Types whose values stay text instead of being parsed (drizzle's dates, times and intervals). */
      keepTextOf: number[] | undefined;
      transaction: number | undefined;
      /** False: run unnamed, planned for these values, never prepared (pglite-prepared.ts). */
      mayPrepare: boolean;
    }
  | { id: number; op: 'exec'; text: string; transaction: number | undefined }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; transaction: number; commit: boolean }
  | { id: number; op: 'dump' }
  | { id: number; op: 'close' };
