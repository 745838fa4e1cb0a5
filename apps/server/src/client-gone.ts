import type { FastifyReply } from 'fastify';

/** The status logged for a request whose client left before its answer: nginx's "client closed request". */
export const clientClosedRequest = 499;

/** Why a request's work stopped short: its client closed the connection before the answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client closed the connection before the answer');
    this.name = 'ClientGoneError';
  }
}

/**
 * Whether the client of `reply` has closed its connection before the answer was written. Asked when
 * work is about to start rather than told by an event: no listener or AbortController per request.
 * (Fastify's `request.signal` cannot serve either way: on Node 20 it aborts as soon as the request's
 * body has been read, whether or not the client is still there.)
 */
export const clientGone = (reply: FastifyReply) => (): boolean =>
  reply.raw.destroyed && !reply.raw.writableFinished;
