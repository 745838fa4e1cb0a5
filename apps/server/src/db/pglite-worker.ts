import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { PGlite, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { serializeError, type ThreadReply } from '../thread-calls.ts';
import { PreparedStatements } from './pglite-prepared.ts';
import type { PgliteRequest, PgliteThreadOptions } from './pglite-protocol.ts';

/**
 * The embedded database's own thread (see pglite-thread.ts): it opens PGlite in the data directory
 * it is given and runs what the server's thread sends it, one statement at a time as PGlite does.
 */

function threadPort(): MessagePort {
  if (parentPort === null) throw new Error('pglite-worker.ts runs as a worker thread');
  return parentPort;
}
const port = threadPort();

const options = workerData as PgliteThreadOptions;

interface OpenTransaction {
  queries: Transaction;
  end(commit: boolean): void;
  settled: Promise<void>;
}

/** Thrown inside PGlite's transaction to have it roll back; never leaves this thread. */
const rollbackRequested = Symbol('rollback requested');

const reply = (message: ThreadReply) => port.postMessage(message);
const failure = (id: number, error: unknown): ThreadReply => ({
  id,
  ok: false,
  error: serializeError(error),
});

/** What of a statement's results goes back: the rest (a blob, the command's name) nobody reads. */
const crossingPart = <Row>({ rows, fields, affectedRows }: Results<Row>) => ({ rows, fields, affectedRows });

const keepText = (value: string) => value;
/** The parsers of each list of types kept as text, made once: the same object each time lets PreparedStatements merge it once. */
const textKeepingParsers = new Map<string, NonNullable<QueryOptions['parsers']>>();

function keepingTextOf(types: number[]): NonNullable<QueryOptions['parsers']> {
  const key = types.join(',');
  let parsers = textKeepingParsers.get(key);
  if (parsers === undefined) {
    parsers = Object.fromEntries(types.map((type) => [type, keepText]));
    textKeepingParsers.set(key, parsers);
  }
  return parsers;
}

/** drizzle passes parsers that keep the text of dates, times and intervals; they cannot cross threads, so their types do. */
function queryOptions(request: Extract<PgliteRequest, { op: 'query' }>): QueryOptions {
  return {
    ...(request.rowMode === undefined ? {} : { rowMode: request.rowMode }),
    ...(request.keepTextOf === undefined ? {} : { parsers: keepingTextOf(request.keepTextOf) }),
  };
}

async function start(): Promise<void> {
  const client = await PGlite.create(options.path, { postgresqlconf: options.postgresqlconf });
  const transactions = new Map<number, OpenTransaction>();
  const prepared = new PreparedStatements(client);

  const queriesOf = (transactionId: number | undefined) => {
    if (transactionId === undefined) return client;
    const open = transactions.get(transactionId);
    if (open === undefined) throw new Error('The transaction has already ended');
    return open.queries;
  };

  function begin(id: number): void {
    let opened = false;
    const settled = client
      .transaction(async (queries) => {
        const commit = await new Promise<boolean>((end) => {
          transactions.set(id, { queries, end, settled });
          opened = true;
          reply({ id, ok: true, value: id });
        });
        if (!commit) throw rollbackRequested;
      })
      .catch((error: unknown) => {
        if (error === rollbackRequested) return;
        if (!opened) reply(failure(id, error));
        throw error;
      });
    // The begin's own failure is answered above; the end answers for the rest.
    settled.catch(() => undefined);
  }

  async function end(id: number, transactionId: number, commit: boolean): Promise<void> {
    const open = transactions.get(transactionId);
    if (open === undefined) throw new Error('The transaction has already ended');
    transactions.delete(transactionId);
    open.end(commit);
    await open.settled;
    reply({ id, ok: true, value: null });
  }

  async function handle(request: PgliteRequest): Promise<void> {
    switch (request.op) {
      case 'query': {
        // Inside a transaction nothing is prepared; outside, only what may be.
        const outside = request.mayPrepare ? prepared : client;
        const queries = request.transaction === undefined ? outside : queriesOf(request.transaction);
        const results = await queries.query(request.text, request.params, queryOptions(request));
        reply({ id: request.id, ok: true, value: crossingPart(results) });
        return;
      }
      case 'exec': {
        const results = await queriesOf(request.transaction).exec(request.text);
        reply({ id: request.id, ok: true, value: results.map(crossingPart) });
        return;
      }
      case 'begin':
        begin(request.id);
        return;
      case 'end':
        await end(request.id, request.transaction, request.commit);
        return;
      case 'dump': {
        // Taken between statements, so the files are as after a crash: recovery makes them whole.
        const tarball = await client.dumpDataDir('gzip');
        reply({ id: request.id, ok: true, value: new Uint8Array(await tarball.arrayBuffer()) });
        return;
      }
      case 'close':
        await client.close();
        reply({ id: request.id, ok: true, value: null });
        port.close();
        return;
    }
  }

  port.on('message', (request: PgliteRequest) => {
    handle(request).catch((error: unknown) => reply(failure(request.id, error)));
  });
  reply({ id: 0, ok: true, value: null });
}

start().catch((error: unknown) => reply(failure(0, error)));
