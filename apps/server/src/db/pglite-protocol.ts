/** What the server's thread and the embedded database's thread (pglite-worker.ts) say to each other. */

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
    }
  | { id: number; op: 'exec'; text: string; transaction: number | undefined }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; transaction: number; commit: boolean }
  | { id: number; op: 'close' };

/** An error as it crosses threads: its message and the fields PostgreSQL gave it (`code`, `detail`...). */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

/** Answers carry the id of their request; id 0 answers the start. */
export type PgliteReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: SerializedError };

const primitive = (value: unknown) =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields = Object.fromEntries(
    Object.entries(error).filter(([key, value]) => key !== 'params' && primitive(value)),
  );
  return { name: error.name, message: error.message, fields };
}

export function deserializeError(serialized: SerializedError): Error {
  const error = Object.assign(new Error(serialized.message), serialized.fields);
  error.name = serialized.name;
  return error;
}
