import type { AccessLookup } from './look-up-access.ts';

/** The access lookup, fetched with its API client the first time it is needed. */
export async function lookUpAccessLazily(subdomain: string): Promise<AccessLookup> {
  const { lookUpAccess } = await import('./look-up-access.ts');
  return lookUpAccess(subdomain);
}
