import type { Scope } from '@entry/domain';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths.ts';
import { textsOf } from '../../i18n/language.ts';
import { notify } from '../notifications.ts';
import { usePortalServices } from './portal-api.ts';
import { scopeStartPath } from './scope-start.ts';
import { sessionMessages } from './session-messages.ts';

/** Who ends the session: the person, or the idle timeout (whose reason stays until the person acts). */
export type SignOutCause = 'person' | 'idle';

/** The navigation state a sign-out leaves for the signed-out page, which says why. */
export interface SignedOutState {
  signedOut: SignOutCause;
}

/**
 * Signing out clears storage even when the call fails, so a person on a lost connection is still
 * signed out here. A launched customer portal returns to the admin portal; an admin's sign-out
 * also forgets the customer portal launched in this tab, whose session the server ends with it.
 */
export function useSignOut(scope: Scope, cause: SignOutCause = 'person') {
  const { api, storage } = usePortalServices();
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);

  async function signOut() {
    setSigningOut(true);
    const launched = scope === 'customer' && api(scope).tokens.get()?.accessType === 'Launched';
    try {
      await api(scope).auth.signOut();
    } catch {
      // The client has already forgotten the session; the server's refresh token expires on its own.
    }
    if (scope === 'admin' && api('customer').tokens.get()?.accessType === 'Launched') {
      api('customer').tokens.remove();
    }
    const start = launched ? paths.adminPortal.home.href() : scopeStartPath(scope, storage);
    // The signed-out page says it itself; the snack-bar beside it would say it twice.
    if (start === paths.consumerPortal.signedOut.href()) {
      navigate(start, { replace: true, state: { signedOut: cause } satisfies SignedOutState });
      return;
    }
    const texts = textsOf('session', sessionMessages);
    if (cause === 'idle') notify(texts.idleSignedOut, 'untilActivity');
    else notify(texts.signedOut);
    navigate(start, { replace: true });
  }

  return { signOut, signingOut };
}
