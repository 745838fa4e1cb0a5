import { describe, expect, it } from 'vitest';
import { headerKindOf, helmetHeaders } from '../src/security-headers.ts';

describe('helmetHeaders', () => {
  const base = {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'self'"], frameAncestors: ["'none'"] },
    },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginEmbedderPolicy: false,
    frameguard: { action: 'deny' },
  } as const;

  it.each([
    ['without HSTS', false, undefined],
    ['with HSTS', { maxAge: 31_536_000, includeSubDomains: true }, 'max-age=31536000; includeSubDomains'],
  ] as const)('computes the headers helmet sets, %s', (_label, hsts, expectedHsts) => {
    const headers = helmetHeaders({ ...base, hsts });
    expect(headers).toMatchObject({
      'content-security-policy': "default-src 'self';frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
    });
    expect(headers['strict-transport-security']).toBe(expectedHsts);
    expect(headers['cross-origin-embedder-policy']).toBeUndefined();
  });
});

describe('headerKindOf', () => {
  it.each([
    ['/', 'page'],
    ['/c/verify-identity?token=x', 'page'],
    ['/assets/app.js', 'page'],
    ['/api/health', 'api'],
    ['/api/docs/openapi.json', 'api'],
    ['/api/docs', 'docs'],
    ['/api/docs/start.js', 'docs'],
  ] as const)('gives %s the headers of the %s', (url, kind) => {
    expect(headerKindOf(url)).toBe(kind);
  });
});
