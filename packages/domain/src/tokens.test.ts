import { describe, expect, it } from 'vitest';
import type { AuthTokenResult } from './api/schemas.ts';
import {
  createTokenRecord,
  decodeJwtPayload,
  emptyTokenRecord,
  isExpired,
  isStale,
  roleIdOf,
  shouldDropTokenOnUpdate,
  storageKeys,
  tokenRecordSchema,
  tokenStateOf,
  tokenStorageKey,
} from './tokens.ts';

function jwtWith(payload: unknown): string {
  const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${segment({ alg: 'EdDSA', typ: 'JWT' })}.${segment(payload)}.c2lnbmF0dXJl`;
}

const authResult: AuthTokenResult = {
  accessToken: jwtWith({ user: { context: { roleId: 3 } } }),
  accessTokenExpiresIn: 15,
  refreshToken: 'refresh',
  refreshTokenExpiresIn: 60,
  sessionGuid: 'session',
  accessType: 'Consumer',
  hasRestrictedAccess: false,
};

const now = Date.UTC(2025, 0, 1, 12, 0, 0);
const minute = 60_000;

describe('createTokenRecord', () => {
  it.each([
    [15, 60, 11.25 * minute, 60 * minute],
    [20, 30, 15 * minute, 30 * minute],
    [1, 1, 45_000, minute],
    [0, 0, 0, 0],
  ])(
    'access %i min / refresh %i min: refreshAt now+%i ms, expiresAt now+%i ms',
    (access, refresh, refreshIn, expiresIn) => {
      const record = createTokenRecord(
        { ...authResult, accessTokenExpiresIn: access, refreshTokenExpiresIn: refresh },
        now,
      );
      expect(record).toEqual({
        token: authResult.accessToken,
        accessType: 'Consumer',
        refreshAt: now + refreshIn,
        expiresAt: now + expiresIn,
        hasRestrictedAccess: false,
      });
    },
  );

  it('keeps the restricted-access flag and access type', () => {
    const record = createTokenRecord(
      { ...authResult, accessType: 'MfaPending', hasRestrictedAccess: true },
      now,
    );
    expect(record.accessType).toBe('MfaPending');
    expect(record.hasRestrictedAccess).toBe(true);
  });
});

describe('stale and expired', () => {
  const record = { ...emptyTokenRecord, token: 't', refreshAt: now + 10, expiresAt: now + 20 };

  it.each([
    [now, false, false],
    [now + 10, false, false],
    [now + 11, true, false],
    [now + 20, true, false],
    [now + 21, true, true],
  ])('at %i: stale %s, expired %s', (at, stale, expired) => {
    expect(isStale(record, at)).toBe(stale);
    expect(isExpired(record, at)).toBe(expired);
    expect(tokenStateOf(record, at)).toMatchObject({ token: 't', stale, expired });
  });
});

describe('decodeJwtPayload', () => {
  it.each([
    [
      'a JSON object payload',
      jwtWith({ user: { context: { roleId: 'r1' } } }),
      { user: { context: { roleId: 'r1' } } },
    ],
    ['non-ASCII text', jwtWith({ name: 'Zoë 日本' }), { name: 'Zoë 日本' }],
    ['padded base64url', `h.${Buffer.from('{"a":1}').toString('base64url')}==.s`, null],
    ['unpadded base64url', `h.${Buffer.from('{"a":1}').toString('base64url')}.s`, { a: 1 }],
  ])('decodes %s', (_name, token, payload) => {
    expect(decodeJwtPayload(token)).toEqual(payload);
  });

  it.each([
    ['empty', ''],
    ['null', null],
    ['undefined', undefined],
    ['one segment', 'abc'],
    ['two segments', `h.${Buffer.from('{}').toString('base64url')}`],
    ['four segments', `h.${Buffer.from('{}').toString('base64url')}.s.x`],
    ['empty middle', 'h..s'],
    ['not base64', 'h.@@@.s'],
    ['not JSON', `h.${Buffer.from('nope').toString('base64url')}.s`],
    ['a JSON array', jwtWith([1, 2])],
    ['a JSON string', jwtWith('text')],
    ['JSON null', jwtWith(null)],
    ['invalid UTF-8', `h.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.s`],
  ])('returns null for a malformed token (%s)', (_name, token) => {
    expect(decodeJwtPayload(token)).toBeNull();
  });
});

describe('roleIdOf', () => {
  it.each([
    [{ user: { context: { roleId: 3 } } }, 3],
    [{ user: { context: { roleId: 'admin' } } }, 'admin'],
    [{ user: { context: { roleId: 0 } } }, 0],
    [{ user: { context: { roleId: '' } } }, null],
    [{ user: { context: { roleId: null } } }, null],
    [{ user: { context: {} } }, null],
    [{ user: { context: 'x' } }, null],
    [{ user: null }, null],
    [{ roleId: 3 }, null],
    [{}, null],
    [null, null],
  ])('reads user.context.roleId of %j as %j', (payload, roleId) => {
    expect(roleIdOf(payload)).toBe(roleId);
  });
});

describe('tokenStateOf', () => {
  it('carries the restricted flag and the decoded payload', () => {
    const record = createTokenRecord({ ...authResult, hasRestrictedAccess: true }, now);
    expect(tokenStateOf(record, now)).toEqual({
      token: authResult.accessToken,
      expired: false,
      stale: false,
      restricted: true,
      payload: { user: { context: { roleId: 3 } } },
    });
  });

  it('treats a missing record as an empty, stale and expired token', () => {
    expect(tokenStateOf(null, now)).toEqual({
      token: '',
      expired: true,
      stale: true,
      restricted: false,
      payload: null,
    });
  });
});

describe('shouldDropTokenOnUpdate', () => {
  it.each([
    ['no roleId, not restricted', jwtWith({ user: {} }), false, true],
    ['malformed token, not restricted', 'garbage', false, true],
    ['empty token', '', false, true],
    ['no roleId, restricted', jwtWith({ user: {} }), true, false],
    ['roleId, not restricted', jwtWith({ user: { context: { roleId: 1 } } }), false, false],
    ['roleId, restricted', jwtWith({ user: { context: { roleId: 1 } } }), true, false],
  ])('%s: drop %s', (_name, token, hasRestrictedAccess, drop) => {
    expect(shouldDropTokenOnUpdate({ token, hasRestrictedAccess })).toBe(drop);
  });
});

describe('storage', () => {
  it.each([
    ['admin', 'admin-token'],
    ['customer', 'customer-token'],
    ['consumer', 'consumer-token'],
    ['portal', 'portal-token'],
  ])('keeps the %s token under %s', (scope, key) => {
    expect(tokenStorageKey(scope)).toBe(key);
  });

  it('names the stored keys exactly as docs/rules.md#web lists them', () => {
    expect(Object.values(storageKeys).sort()).toEqual(
      [
        'idle-expired-time',
        'integrationType',
        'menuItems',
        'session-guid',
        'skip-2fa',
        'mfa-complete',
        'redirect',
        'token-redirect',
        'token-target',
      ].sort(),
    );
  });

  it.each([
    [{}, emptyTokenRecord],
    [
      { token: 'x', refreshAt: 5 },
      { ...emptyTokenRecord, token: 'x', refreshAt: 5 },
    ],
  ])('parses the stored record %j with defaults', (stored, record) => {
    expect(tokenRecordSchema.parse(stored)).toEqual(record);
  });

  it('rejects a stored record of the wrong shape', () => {
    expect(tokenRecordSchema.safeParse({ token: 1 }).success).toBe(false);
  });
});
