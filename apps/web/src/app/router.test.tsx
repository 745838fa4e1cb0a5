import type { ReactElement } from 'react';
import { createRoutesFromChildren, matchRoutes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { AppRoutes } from './router.tsx';

const routes = createRoutesFromChildren(
  (AppRoutes() as ReactElement<{ children: ReactElement }>).props.children,
);

function matchedPattern(pathname: string): string {
  const matches = matchRoutes(routes, pathname) ?? [];
  return matches
    .map((match) => match.route.path ?? '')
    .filter((path) => path !== '')
    .join('');
}

describe('AppRoutes', () => {
  it.each([
    ['/', ''],
    ['/unsubscribe', '/unsubscribe'],
    ['/abc', '/:token'],
    ['/abc/1', '/:token/:target'],
    ['/abc/3/42', '/:token/:target/:targetId'],
    ['/c/', '/c/'],
    ['/c/documents', '/c/documents'],
    ['/c/document-view/42', '/c/document-view/:id'],
    ['/c/payment-method/17', '/c/payment-method/:id'],
    ['/c/verify-token', '/c/verify-token'],
    ['/a/sign-in', '/a/*'],
    ['/d/sign-in', '/d/*'],
    ['/a/reset-password/extra', '/a/:section/:rest/*'],
    ['/a/console/audit', '/a/:section/:rest/*'],
    ['/d/console/staff', '/d/:section/:rest/*'],
    ['/a/console', '/a/*'],
    ['/d/home/x/y', '/d/:section/:rest/*'],
    ['/c/mfa', '/c/mfa'],
    ['/one/two/three/four', '*'],
  ])('routes %s to %s', (pathname, pattern) => {
    expect(matchedPattern(pathname)).toBe(pattern);
  });
});
