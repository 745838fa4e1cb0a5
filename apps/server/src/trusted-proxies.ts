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
