import { compile } from '@fastify/proxy-addr';
import type { Config } from './config.ts';

/** Whether the `hop`th address of a request's forwarding chain, from the server outwards, is a trusted proxy. */
type TrustsHop = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY as Fastify takes it. A hop count trusts that many hops whatever their addresses,
 * as Fastify's own number does; its types only take a function for it.
 */
export function fastifyTrustProxy(trust: Config['trustProxy']): false | string[] | TrustsHop {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}

/** Whether the peer a request came from directly is a trusted proxy, whose headers may be believed. */
export function trustsPeer(
  trust: Exclude<Config['trustProxy'], false>,
): (peer: string | undefined) => boolean {
  const trustsHop = typeof trust === 'number' ? () => true : compile(trust);
  return (peer) => peer !== undefined && trustsHop(peer, 0);
}
