import { describe, expect, it } from 'vitest';
import {
  buildPortalPageUrl,
  buildPortalUrl,
  parseTargetCode,
  portalPages,
  portalPathFor,
  targetPath,
} from './targets.ts';

describe('targetPath', () => {
  it.each([
    [0, 'account-summary'],
    [1, 'documents'],
    [2, 'payment-options'],
    [3, 'document-view'],
    [4, 'payment-method'],
    [5, 'payment-method'],
    [6, ''],
    [7, 'payment-options'],
    ['3', 'document-view'],
    ['6', ''],
  ] as const)('maps target %j to %j', (target, path) => {
    expect(targetPath(target)).toBe(path);
  });

  it.each([[8], [-1], ['8'], ['abc'], [''], ['1.5'], [1.5], [' 2'], [null], [undefined], ['constructor']])(
    'falls back to account-summary for the unknown or missing target %j',
    (target) => {
      expect(targetPath(target)).toBe('account-summary');
      expect(parseTargetCode(target)).toBeNull();
    },
  );
});

describe('portalPathFor', () => {
  it.each([
    [0, undefined, 'account-summary'],
    [3, '42', 'document-view/42'],
    [4, 7, 'payment-method/7'],
    [6, undefined, ''],
    [6, '9', '9'],
    [99, '5', 'account-summary/5'],
    [1, '', 'documents'],
    [1, null, 'documents'],
    [1, 'a/b', 'documents/a%2Fb'],
  ] as const)('target %j with id %j gives %j', (target, targetId, path) => {
    expect(portalPathFor(target, targetId)).toBe(path);
  });
});

describe('buildPortalUrl', () => {
  const host = { scheme: 'http', subdomain: 'sender', domain: 'localhost', port: '8080' };

  it.each([
    [
      { ...host, target: 0, sessionGuid: 'g-1' },
      'http://sender.localhost:8080/c/account-summary?session-guid=g-1',
    ],
    [
      { ...host, target: '3', targetId: '12', sessionGuid: 'g-1' },
      'http://sender.localhost:8080/c/document-view/12?session-guid=g-1',
    ],
    [{ ...host, target: 6, sessionGuid: 'g-1' }, 'http://sender.localhost:8080/c/?session-guid=g-1'],
    [
      { ...host, target: 'x', sessionGuid: 'g 1' },
      'http://sender.localhost:8080/c/account-summary?session-guid=g%201',
    ],
    [
      { ...host, scheme: 'https', domain: 'example.com', port: '', target: 2, sessionGuid: 'g' },
      'https://sender.example.com/c/payment-options?session-guid=g',
    ],
    [{ ...host, port: undefined, target: 1, sessionGuid: null }, 'http://sender.localhost/c/documents'],
  ])('builds %j as %s', (input, url) => {
    expect(buildPortalUrl(input)).toBe(url);
  });
});

describe('portal pages', () => {
  it.each([
    [portalPages.expiredLink, 'expired-link'],
    [portalPages.failedConnection, 'failed-connection'],
    [portalPages.verifyToken, 'verify-token'],
    [portalPages.verifyIdentity, 'verify-identity'],
  ])('names %s', (page, expected) => {
    expect(page).toBe(expected);
    expect(
      buildPortalPageUrl({ scheme: 'http', subdomain: 's', domain: 'localhost', port: '8080', page }),
    ).toBe(`http://s.localhost:8080/c/${expected}`);
  });
});
