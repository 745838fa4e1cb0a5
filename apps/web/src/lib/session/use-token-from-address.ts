import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { usePortalServices } from './portal-api.ts';

/**
 * Reads `?token=` once and takes it out of the address, so a credential from a mail (a reset or
 * launch token) does not stay in the address bar or the history. With `keptUnder`, the token is
 * kept in the tab's session storage under that key, so a reload of the page still has it; the
 * page removes it once the token is spent or refused.
 */
export function useTokenFromAddress(keptUnder?: string): string | null {
  const location = useLocation();
  const navigate = useNavigate();
  const { storage } = usePortalServices();
  const [token] = useState(() => {
    const fromAddress = new URLSearchParams(location.search).get('token') || null;
    if (keptUnder === undefined) return fromAddress;
    if (fromAddress === null) return storage.getItem(keptUnder);
    storage.setItem(keptUnder, fromAddress);
    return fromAddress;
  });
  const hasQuery = location.search !== '';
  useEffect(() => {
    if (hasQuery) navigate(location.pathname, { replace: true, state: location.state });
  }, [hasQuery, navigate, location.pathname, location.state]);
  return token;
}
