import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/**
 * A tighter bound on the statements of the calls a person waits on (sign-ins, refreshes,
 * lookups), within the pool's longer one: imports, exports and background work keep that.
 * The bound follows the call through every await, so no store has to pass it along.
 */
const callBoundMs = new AsyncLocalStorage<number>();

/** Runs `work` with every PostgreSQL statement it sends answered within `boundMs` or failed. */
export function withStatementBound<T>(boundMs: number, work: () => T): T {
  return callBoundMs.run(boundMs, work);
}

type UntypedQuery = (this: pg.Client, config: unknown, ...rest: unknown[]) => unknown;
const unboundQuery = pg.Client.prototype.query as unknown as UntypedQuery;

/**
 * node-postgres' client with a per-statement `query_timeout` while a bound is in force. A statement
 * past it fails as "Query read timeout" (an outage, answered 503) and its connection is dropped by
 * the pool, so nothing waits on a frozen database longer than the call allows.
 */
export class StatementBoundClient extends pg.Client {}

const boundQuery: UntypedQuery = function boundQuery(config, ...rest) {
  const boundMs = callBoundMs.getStore();
  if (boundMs === undefined) return unboundQuery.call(this, config, ...rest);
  if (typeof config === 'string')
    return unboundQuery.call(this, { text: config, query_timeout: boundMs }, ...rest);
  // A submittable (a cursor, a stream) is the query itself and keeps its own object.
  if (typeof config !== 'object' || config === null || 'submit' in config)
    return unboundQuery.call(this, config, ...rest);
  return unboundQuery.call(this, { ...config, query_timeout: boundMs }, ...rest);
};
StatementBoundClient.prototype.query = boundQuery as unknown as pg.Client['query'];
