import { storageKeys } from '@entry/domain';
import { useNavigate } from 'react-router';
import { usePortalServices } from '../../../lib/session/portal-api.ts';
import { type StaffScope, staffPaths } from './staff-scope.ts';

/** Where a sign-in returns: the page an ended session interrupted, if it belongs to this portal. */
function returnPath(saved: string | null, scope: StaffScope): string {
  const pages = staffPaths(scope);
  const base = pages.href();
  const signInSteps = [pages.signIn.href(), pages.secondFactor.href()];
  if (saved?.startsWith(`${base}/`) && !signInSteps.some((step) => saved.startsWith(step))) return saved;
  return pages.home.href();
}

/**
 * Ends a sign-in with a full session, whichever step completed it (a password, a second factor, a
 * passkey, a first factor's set-up): on to the page an ended session interrupted, or home.
 */
export function useFinishSignIn(scope: StaffScope): () => void {
  const { storage } = usePortalServices();
  const navigate = useNavigate();
  return () => {
    const saved = storage.getItem(storageKeys.redirect);
    storage.removeItem(storageKeys.redirect);
    navigate(returnPath(saved, scope), { replace: true });
  };
}
