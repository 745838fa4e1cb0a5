import { type Scope, type TokenRecord, type TokenState, tokenStorageKey } from '@entry/domain';
import { useCallback, useSyncExternalStore } from 'react';
import { usePortalServices } from './portal-api.ts';

export interface SessionView {
  /** The stored token record, or null when the scope has no session in this tab. */
  record: TokenRecord | null;
  /** The token state at the time of the last render. */
  state: TokenState;
}

/** The scope's session as stored in this tab; re-renders whenever the token record changes. */
export function useSession(scope: Scope): SessionView {
  const { api, storage } = usePortalServices();
  const tokens = api(scope).tokens;
  const key = tokenStorageKey(scope);
  // The raw text is the snapshot: a stable value until the record itself changes.
  const raw = useSyncExternalStore(
    useCallback((onChange) => storage.subscribe(onChange), [storage]),
    () => storage.getItem(key),
  );
  return { record: raw === null ? null : tokens.get(), state: tokens.state() };
}

/** A full session: a token that has neither expired nor only restricted (MFA pending) access. */
export function isSignedIn(view: SessionView): boolean {
  return view.state.token !== '' && !view.state.expired && !view.state.restricted;
}
