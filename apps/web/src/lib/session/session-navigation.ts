import { type Scope, storageKeys } from '@entry/domain';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { scopeStartPath } from './scope-start.ts';

type NavigateInApp = (path: string) => void;

let navigateInApp: NavigateInApp | null = null;

/**
 * Lets code outside React (the API client's hooks) move within the app, so the snack-bar message
 * of an ended session stays on screen instead of vanishing with a page reload.
 */
export function useSessionNavigation(): void {
  const navigate = useNavigate();
  useEffect(() => {
    const current: NavigateInApp = (path) => navigate(path, { replace: true });
    navigateInApp = current;
    return () => {
      if (navigateInApp === current) navigateInApp = null;
    };
  }, [navigate]);
}

/**
 * Sends the person to the scope's start after the session ended on its own (expiry, 401), and keeps
 * the page they were on under `redirect`, so signing in again returns there.
 */
export function returnToScopeStart(
  scope: Scope,
  storage: Pick<Storage, 'getItem' | 'setItem'>,
  location: Pick<Location, 'pathname' | 'search' | 'assign'> = window.location,
): void {
  const start = scopeStartPath(scope, storage);
  const current = `${location.pathname}${location.search}`;
  if (location.pathname !== start) storage.setItem(storageKeys.redirect, current);
  if (navigateInApp !== null) navigateInApp(start);
  else location.assign(start);
}
