import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server (PostgreSQL) that a test can stop, freeze and start again,
 * as an operator would stop or SIGSTOP the database: stopped, connections are cut and refused;
 * frozen, they stay open and nothing passes either way.
 */
export class FaultProxy {
  readonly #target: { host: string; port: number };
  #server: Server | undefined;
  readonly #pairs = new Set<[Socket, Socket]>();
  #frozen = false;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  /** Listens (again) on its port, the OS's choice the first time. */
  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.#target.port, this.#target.host);
      const pair: [Socket, Socket] = [client, upstream];
      this.#pairs.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      // After the pipes, which would otherwise start the flow again.
      if (this.#frozen) for (const socket of pair) socket.pause();
      const end = () => {
        this.#pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    this.port = address.port;
    this.#server = server;
  }

  /** Cuts every connection and refuses new ones, as a stopped database does. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Lets nothing through either way, on open connections and new ones alike. */
  freeze(): void {
    this.#frozen = true;
    for (const pair of this.#pairs) for (const socket of pair) socket.pause();
  }

  thaw(): void {
    this.#frozen = false;
    for (const pair of this.#pairs) for (const socket of pair) socket.resume();
  }
}
