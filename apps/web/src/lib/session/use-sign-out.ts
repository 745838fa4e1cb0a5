import type { Scope } from '@entry/domain';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { notify } from '../notifications.ts';
import { usePortalServices } from './portal-api.ts';
import { scopeStartPath } from './scope-start.ts';
import { sessionMessages } from './session-messages.ts';

/**
 * Signing out: the server ends the session, the token and the session keys leave storage (even
 * when the call fails, so a person on a lost connection is still signed out here), and the person
 * returns to the scope's start.
 */
export function useSignOut(scope: Scope, message: string = sessionMessages.signedOut) {
  const { api } = usePortalServices();
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);

  async function signOut() {
    setSigningOut(true);
    try {
      await api(scope).auth.signOut();
    } catch {
      // The client has already forgotten the session; the server's refresh token expires on its own.
    }
    notify(message);
    navigate(scopeStartPath(scope), { replace: true });
  }

  return { signOut, signingOut };
}
