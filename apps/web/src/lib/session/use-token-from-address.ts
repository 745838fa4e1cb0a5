import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';

/**
 * Reads `?token=` once and takes it out of the address, so a credential from a mail (a reset or
 * launch token) does not stay in the address bar or the history.
 */
export function useTokenFromAddress(): string | null {
  const location = useLocation();
  const navigate = useNavigate();
  const [token] = useState(() => new URLSearchParams(location.search).get('token') || null);
  const hasQuery = location.search !== '';
  useEffect(() => {
    if (hasQuery) navigate(location.pathname, { replace: true, state: location.state });
  }, [hasQuery, navigate, location.pathname, location.state]);
  return token;
}
