import { storageKeys } from '@entry/domain';
import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { usePortalServices } from '../../lib/session/portal-api.ts';

/**
 * A portal address carries `?session-guid=` (docs/rules.md#web); it is kept in storage for the
 * session-guid header and dropped from the address.
 */
export function useSessionGuidFromAddress(): void {
  const { search, pathname } = useLocation();
  const { storage } = usePortalServices();
  useEffect(() => {
    const sessionGuid = new URLSearchParams(search).get(storageKeys.sessionGuid);
    if (sessionGuid === null || sessionGuid === '') return;
    storage.setItem(storageKeys.sessionGuid, sessionGuid);
    window.history.replaceState(window.history.state, '', pathname);
  }, [search, pathname, storage]);
}
