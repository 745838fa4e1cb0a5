import type { AccessLookup } from './look-up-access.ts';

/**
 * The access lookup, fetched with its API client the first time it is needed. On a first visit
 * without a connection that script cannot be loaded either: the server is then unreachable.
 */
export async function lookUpAccessLazily(subdomain: string): Promise<AccessLookup> {
  let lookUpAccess: (subdomain: string) => Promise<AccessLookup>;
  try {
    ({ lookUpAccess } = await import('./look-up-access.ts'));
  } catch {
    return { kind: 'unreachable' };
  }
  return lookUpAccess(subdomain);
}
