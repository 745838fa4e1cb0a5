import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogger } from '../src/request-log.ts';

/** A pino logger at `info` whose lines land in `lines`, parsed. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info', base: null, timestamp: false }, stream), lines };
}

describe('request loggers', () => {
  const app = Fastify();

  it("carries the request's bindings at the logger's level, or the route's", () => {
    const { logger, lines } = capturedLogger();
    const plain = requestLogger.call(app, logger, { reqId: 'one' }, {}, undefined as never);
    const quiet = requestLogger.call(app, logger, { reqId: 'two' }, { level: 'warn' }, undefined as never);
    plain.info('plain info');
    quiet.info('quiet info');
    quiet.warn('quiet warning');
    expect(lines).toEqual([
      { level: 30, reqId: 'one', msg: 'plain info' },
      { level: 40, reqId: 'two', msg: 'quiet warning' },
    ]);
  });

  it('keeps each request apart from the ones before it at the same level', () => {
    const { logger, lines } = capturedLogger();
    for (const reqId of ['a', 'b', 'c']) {
      requestLogger.call(app, logger, { reqId }, { level: 'warn' }, undefined as never).error('failed');
    }
    expect(lines.map((line) => line.reqId)).toEqual(['a', 'b', 'c']);
  });

  it("gives a route's own serializers a child of their own", () => {
    const { logger, lines } = capturedLogger();
    const child = requestLogger.call(
      app,
      logger,
      { reqId: 'three' },
      { serializers: { user: (user: { name: string }) => user.name } },
      undefined as never,
    );
    child.info({ user: { name: 'Ada' } }, 'signed in');
    expect(lines).toEqual([{ level: 30, reqId: 'three', user: 'Ada', msg: 'signed in' }]);
  });
});
