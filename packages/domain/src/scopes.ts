import { scopeDoesNotImplementMessage, unrecognizedScopeMessage } from './messages.ts';

/** The three user groups. */
export const scopes = ['admin', 'customer', 'consumer'] as const;

export type Scope = (typeof scopes)[number];

/** The scopes whose users are staff: they sign in with a username and password. */
export const staffKinds = ['admin', 'customer'] as const;

export type StaffKind = (typeof staffKinds)[number];

/** The portals an admin launches a tenant's sign-in into. */
export const launchKinds = ['customer', 'dashbilling'] as const;

export type LaunchKind = (typeof launchKinds)[number];

/** The `roleId` in the access token of each scope (every full token has one). */
export const roleIdByScope: Readonly<Record<Scope, number>> = { admin: 1, customer: 2, consumer: 3 };

export const scopeActions = [
  'signIn',
  'refresh',
  'signOut',
  'resetPassword',
  'changePassword',
  'signInWithToken',
  'lookupSignIn',
  'mfaSignIn',
  'identityTokenSignIn',
] as const;

export type ScopeAction = (typeof scopeActions)[number];

const staffActions = ['signIn', 'refresh', 'signOut', 'resetPassword', 'changePassword'] as const;

/**
 * What each scope implements: admin signs in with a password (no sign-in with token), customer
 * also with a launch token, consumer only through an identity token, a lookup or MFA.
 */
const actionsByScope: Readonly<Record<Scope, readonly ScopeAction[]>> = {
  admin: staffActions,
  customer: [...staffActions, 'signInWithToken'],
  consumer: ['refresh', 'signOut', 'identityTokenSignIn', 'lookupSignIn', 'mfaSignIn'],
};

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (scopes as readonly string[]).includes(value);
}

export function scopeImplements(scope: Scope, action: ScopeAction): boolean {
  return actionsByScope[scope].includes(action);
}

/**
 * Throws '{scope} is not a recognized scope.' for an unknown scope and
 * '{scope} does not implement {action}' for an action the scope lacks.
 */
export function assertScopeAction(scope: string, action: string): asserts scope is Scope {
  if (!isScope(scope)) throw new Error(unrecognizedScopeMessage(scope));
  if (!(actionsByScope[scope] as readonly string[]).includes(action)) {
    throw new Error(scopeDoesNotImplementMessage(scope, action));
  }
}
