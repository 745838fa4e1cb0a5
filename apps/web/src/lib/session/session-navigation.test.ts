import { storageKeys } from '@entry/domain';
import { describe, expect, it, vi } from 'vitest';
import { returnToScopeStart } from './session-navigation.ts';

function fakeLocation(pathname: string, search = '') {
  return { pathname, search, assign: vi.fn() };
}

describe('returnToScopeStart', () => {
  it.each([
    ['admin', '/a/home', '/a/sign-in'],
    ['customer', '/d/change-password', '/d/sign-in'],
    ['consumer', '/c/documents/4', '/c/verify-identity'],
  ] as const)('sends a %s from %s to %s and keeps the page to return to', (scope, from, start) => {
    const saved = new Map<string, string>();
    const location = fakeLocation(from, '?tab=1');
    returnToScopeStart(scope, { setItem: (key, value) => saved.set(key, value) }, location);
    expect(location.assign).toHaveBeenCalledWith(start);
    expect(saved.get(storageKeys.redirect)).toBe(`${from}?tab=1`);
  });

  it('keeps no return page when the person is already at the start', () => {
    const saved = new Map<string, string>();
    returnToScopeStart(
      'admin',
      { setItem: (key, value) => saved.set(key, value) },
      fakeLocation('/a/sign-in'),
    );
    expect(saved.size).toBe(0);
  });
});
