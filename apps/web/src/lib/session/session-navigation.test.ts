import { storageKeys } from '@entry/domain';
import { describe, expect, it, vi } from 'vitest';
import { type PendingVerification, rememberedLinkKey } from '../pending-verification.ts';
import { returnToScopeStart } from './session-navigation.ts';

function fakeLocation(pathname: string, search = '') {
  return { pathname, search, assign: vi.fn() };
}

function fakeStorage(initial: Record<string, string> = {}) {
  const saved = new Map(Object.entries(initial));
  return {
    saved,
    getItem: (key: string) => saved.get(key) ?? null,
    setItem: (key: string, value: string) => {
      saved.set(key, value);
    },
  };
}

const zipLink: PendingVerification = {
  token: 'link-1',
  signInType: 'PostalCode',
  customerId: 1001,
  subdomain: 'sender',
};

describe('returnToScopeStart', () => {
  it.each([
    ['admin', '/a/home', '/a/sign-in'],
    ['customer', '/d/change-password', '/d/sign-in'],
    ['consumer', '/c/documents/4', '/c/verify-identity'],
  ] as const)('sends a %s from %s to %s and keeps the page to return to', (scope, from, start) => {
    const storage = fakeStorage();
    const location = fakeLocation(from, '?tab=1');
    returnToScopeStart(scope, storage, location);
    expect(location.assign).toHaveBeenCalledWith(start);
    expect(storage.saved.get(storageKeys.redirect)).toBe(`${from}?tab=1`);
  });

  it.each([
    ['a ZIP code', zipLink, '/c/verify-token'],
    ['all three answers', { ...zipLink, signInType: 'None' } as const, '/c/verify-identity'],
  ])('sends a consumer whose link asks for %s back to that question', (_asks, link, start) => {
    const location = fakeLocation('/c/account-summary');
    returnToScopeStart('consumer', fakeStorage({ [rememberedLinkKey]: JSON.stringify(link) }), location);
    expect(location.assign).toHaveBeenCalledWith(start);
  });

  it('keeps no return page when the person is already at the start', () => {
    const storage = fakeStorage();
    returnToScopeStart('admin', storage, fakeLocation('/a/sign-in'));
    expect(storage.saved.size).toBe(0);
  });
});
