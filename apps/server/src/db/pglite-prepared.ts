import { type PGlite, parse, protocol, type QueryOptions, type Results } from '@electric-sql/pglite';

/** Statements prepared at most: the server's own texts number a few dozen, so this cap is never the limit for them. */
const mostPrepared = 256;
/** Texts counted at most before the count starts over: one-off texts (a list of ids) must not pile up. */
const mostCounted = 4096;

interface PreparedStatement {
  name: string;
  paramTypes: number[];
}

/**
 * PGlite's `query` parses and plans every call anew (decision record 010), so a text run a second
 * time outside a transaction becomes a named prepared statement, bound and executed in one call.
 * The answer, errors included, is what `query` gives.
 */
export class PreparedStatements {
  readonly #client: PGlite;
  readonly #prepared = new Map<string, PreparedStatement>();
  readonly #runs = new Map<string, number>();
  readonly #mergedParsers = new WeakMap<NonNullable<QueryOptions['parsers']>, PGlite['parsers']>();

  constructor(client: PGlite) {
    this.#client = client;
  }

  /** `client.query(text, params, options)`, outside any transaction. */
  query<Row>(text: string, params: unknown[] = [], options: QueryOptions = {}): Promise<Results<Row>> {
    const client = this.#client;
    if (!this.#prepared.has(text) && !this.#runAgain(text)) return client.query<Row>(text, params, options);
    // The same locks as `query`: after any open transaction, one statement at a time.
    return client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        const statement = this.#prepared.get(text) ?? (await this.#prepare(text));
        const values = params.map((value, index) => {
          if (value === null || value === undefined) return null;
          const type = statement.paramTypes[index] ?? 0;
          const serializer = options.serializers?.[type] ?? client.serializers[type];
          return serializer === undefined ? String(value) : serializer(value);
        });
        const { messages } = await client.execProtocol(
          Buffer.concat([
            protocol.serialize.bind({ statement: statement.name, values }),
            protocol.serialize.describe({ type: 'P' }),
            protocol.serialize.execute({}),
            protocol.serialize.sync(),
          ]),
          { syncToFs: false },
        );
        await client.syncToFs();
        const [results] = parse.parseResults(messages, this.#parsersWith(options.parsers), {
          ...(options.rowMode === undefined ? {} : { rowMode: options.rowMode }),
        });
        if (results === undefined) throw new Error('PGlite answered a prepared statement without results');
        return results as Results<Row>;
      }),
    );
  }

  /**
   * The client's parsers with the query's own in their place, merged once for each object of them:
   * given a query's parsers, PGlite's `parseResults` would copy all of its own on every query.
   */
  #parsersWith(own: QueryOptions['parsers']): PGlite['parsers'] {
    if (own === undefined) return this.#client.parsers;
    let merged = this.#mergedParsers.get(own);
    if (merged === undefined) {
      merged = { ...this.#client.parsers, ...own };
      this.#mergedParsers.set(own, merged);
    }
    return merged;
  }

  /** Whether the text has run before (and may be prepared now); counts this run. */
  #runAgain(text: string): boolean {
    if (this.#prepared.size >= mostPrepared) return false;
    const runs = this.#runs.get(text) ?? 0;
    if (runs === 0 && this.#runs.size >= mostCounted) this.#runs.clear();
    this.#runs.set(text, runs + 1);
    return runs >= 1;
  }

  async #prepare(text: string): Promise<PreparedStatement> {
    const name = `entry_prepared_${this.#prepared.size + 1}`;
    const { messages } = await this.#client.execProtocol(
      Buffer.concat([
        protocol.serialize.parse({ name, text }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    this.#prepared.set(text, statement);
    this.#runs.delete(text);
    return statement;
  }
}
