import { describe, expect, it } from 'vitest';
import { assertScopeAction, scopeActions, scopeImplements, scopes } from './scopes.ts';

const implemented = {
  admin: ['signIn', 'refresh', 'signOut', 'resetPassword', 'changePassword'],
  customer: ['signIn', 'refresh', 'signOut', 'resetPassword', 'changePassword', 'signInWithToken'],
  consumer: ['refresh', 'signOut', 'identityTokenSignIn', 'lookupSignIn', 'mfaSignIn'],
} as const;

describe('scope actions', () => {
  const table = scopes.flatMap((scope) =>
    scopeActions.map(
      (action) => [scope, action, (implemented[scope] as readonly string[]).includes(action)] as const,
    ),
  );

  it.each(table)('%s implements %s: %s', (scope, action, expected) => {
    expect(scopeImplements(scope, action)).toBe(expected);
    if (expected) {
      expect(() => assertScopeAction(scope, action)).not.toThrow();
    } else {
      expect(() => assertScopeAction(scope, action)).toThrow(
        new Error(`${scope} does not implement ${action}`),
      );
    }
  });

  it.each([['dash'], ['Admin'], [''], ['toString']])('rejects the unknown scope %j', (scope) => {
    expect(() => assertScopeAction(scope, 'refresh')).toThrow(
      new Error(`${scope} is not a recognized scope.`),
    );
  });

  it('gives the spec message for an admin sign-in with token', () => {
    expect(() => assertScopeAction('admin', 'signInWithToken')).toThrow(
      'admin does not implement signInWithToken',
    );
  });
});
