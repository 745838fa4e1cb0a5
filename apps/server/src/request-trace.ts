import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from './config.ts';
import { trustsPeer } from './trusted-proxies.ts';

/**
 * A request's identity across the systems it passes: the `x-request-id` a trusted proxy gave it,
 * and the W3C trace (`traceparent`) it belongs to, both in its log lines.
 */

const requestIdPattern = /^[\w.:-]{1,128}$/;

/**
 * The request's id: the `x-request-id` of a trusted proxy (TRUST_PROXY) that the request came
 * through, so its log and ours name the request alike; otherwise a new one, since a client could
 * choose any.
 */
export function requestIdOf(config: Pick<Config, 'trustProxy'>): (request: IncomingMessage) => string {
  if (config.trustProxy === false) return () => randomUUID();
  const fromTrustedPeer = trustsPeer(config.trustProxy);
  return (request) => {
    const given = fromTrustedPeer(request.socket.remoteAddress) ? request.headers['x-request-id'] : undefined;
    return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
  };
}

/** `version-traceid-parentid-flags`, the trace id and parent id not all zeros (W3C Trace Context). */
const traceparentPattern = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-[0-9a-f]{2}$/;

/** Binds the request's trace to its log lines, when it came with a valid `traceparent`. */
export function bindTrace(request: FastifyRequest, reply: FastifyReply): void {
  const header = request.headers.traceparent;
  if (typeof header !== 'string') return;
  const match = traceparentPattern.exec(header.trim());
  if (match === null) return;
  const traced = request.log.child({ traceId: match[1], parentSpanId: match[2] });
  request.log = traced;
  // The line written when the request ends is the reply's.
  reply.log = traced;
}
