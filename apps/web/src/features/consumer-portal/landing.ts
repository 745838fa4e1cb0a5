import type { TokenStore } from '@entry/client';
import { consumerPortalBasePath, storageKeys } from '@entry/domain';

/**
 * Where a verified consumer lands: the page the link targeted, kept under
 * `token-redirect` across verification and the code step, with the session guid in the address.
 */
export function landingPath(tokens: Pick<TokenStore, 'getItem'>, sessionGuid: string): string {
  const target = tokens.getItem(storageKeys.tokenRedirect) ?? '';
  // Only a path below the portal: a stored value never sends the person elsewhere.
  const below = /^[a-z0-9-]*(?:\/[A-Za-z0-9._~-]+)?$/.test(target) ? target : '';
  return `${consumerPortalBasePath}${below}?${new URLSearchParams({ [storageKeys.sessionGuid]: sessionGuid })}`;
}
