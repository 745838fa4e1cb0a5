import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A collector's OTLP/HTTP endpoint that takes every export and keeps nothing, counting the spans' bytes. */
export async function startOtlpSink(): Promise<{
  url: string;
  receivedBytes: () => number;
  stop: () => Promise<void>;
}> {
  let received = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    receivedBytes: () => received,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
