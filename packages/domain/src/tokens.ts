import { type AccessType, type AuthTokenResult, accessTypeSchema } from './api/schemas.ts';
import { accessTokenRefreshFraction, tokenLifetimeUnitMs } from './constants.ts';
import { z } from './zod.ts';

/** The access token record kept in session storage (docs/rules.md#web). */
export interface TokenRecord {
  token: string;
  accessType: AccessType | null;
  /** Epoch ms after which the token is stale and is refreshed before use. */
  refreshAt: number;
  /** Epoch ms after which the token is expired and the session is over. */
  expiresAt: number;
  hasRestrictedAccess: boolean;
}

/** Parses a stored record; fields missing from an older or partial record take their defaults. */
export const tokenRecordSchema = z.object({
  token: z.string().default(''),
  accessType: accessTypeSchema.nullable().default(null),
  refreshAt: z.number().default(0),
  expiresAt: z.number().default(0),
  hasRestrictedAccess: z.boolean().default(false),
});

export const emptyTokenRecord: Readonly<TokenRecord> = Object.freeze({
  token: '',
  accessType: null,
  refreshAt: 0,
  expiresAt: 0,
  hasRestrictedAccess: false,
});

export function createTokenRecord(result: AuthTokenResult, nowMs: number): TokenRecord {
  return {
    token: result.accessToken,
    accessType: result.accessType,
    refreshAt: Math.round(
      nowMs + accessTokenRefreshFraction * result.accessTokenExpiresIn * tokenLifetimeUnitMs,
    ),
    expiresAt: Math.round(nowMs + result.refreshTokenExpiresIn * tokenLifetimeUnitMs),
    hasRestrictedAccess: result.hasRestrictedAccess,
  };
}

/** Stale: the current time is past refreshAt. */
export function isStale(record: Pick<TokenRecord, 'refreshAt'>, nowMs: number): boolean {
  return nowMs > record.refreshAt;
}

/** Expired: the current time is past expiresAt. */
export function isExpired(record: Pick<TokenRecord, 'expiresAt'>, nowMs: number): boolean {
  return nowMs > record.expiresAt;
}

export type JwtPayload = Record<string, unknown>;

/** The JSON of a three-segment JWT's middle segment; null when the token is not shaped like one. */
export function decodeJwtPayload(token: string | null | undefined): JwtPayload | null {
  if (!token) return null;
  const segments = token.split('.');
  const payloadSegment = segments[1];
  if (segments.length !== 3 || !payloadSegment || !/^[A-Za-z0-9_-]+$/.test(payloadSegment)) return null;
  try {
    const base64 = payloadSegment.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='));
    const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
    const payload: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return isPlainObject(payload) ? payload : null;
  } catch {
    return null;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type RoleId = string | number;

/** `user.context.roleId` of a token payload; null when absent or empty. */
export function roleIdOf(payload: JwtPayload | null | undefined): RoleId | null {
  const user = payload?.user;
  const context = isPlainObject(user) ? user.context : undefined;
  const roleId = isPlainObject(context) ? context.roleId : undefined;
  if (typeof roleId === 'number' && Number.isFinite(roleId)) return roleId;
  if (typeof roleId === 'string' && roleId !== '') return roleId;
  return null;
}

/** What the entry application knows about the current token. */
export interface TokenState {
  token: string;
  expired: boolean;
  stale: boolean;
  restricted: boolean;
  payload: JwtPayload | null;
}

/**
 * The token state at `nowMs`. Without a record the state is that of the empty record: no token,
 * stale and expired; callers tell "no token" from "expired token" by `token`.
 */
export function tokenStateOf(record: TokenRecord | null | undefined, nowMs: number): TokenState {
  const current = record ?? emptyTokenRecord;
  return {
    token: current.token,
    expired: isExpired(current, nowMs),
    stale: isStale(current, nowMs),
    restricted: current.hasRestrictedAccess,
    payload: decodeJwtPayload(current.token),
  };
}

/** A token with neither restricted access nor a roleId is dropped when the app updates. */
export function shouldDropTokenOnUpdate(record: Pick<TokenRecord, 'token' | 'hasRestrictedAccess'>): boolean {
  return !record.hasRestrictedAccess && roleIdOf(decodeJwtPayload(record.token)) === null;
}

/** The storage key of a scope's token: the configurable scope name plus the token suffix. */
export function tokenStorageKey(scope: string): string {
  return `${scope}-token`;
}

/** The exact storage key names (all kept in session storage, docs/rules.md#web). */
export const storageKeys = {
  idleExpiredTime: 'idle-expired-time',
  integrationType: 'integrationType',
  menuItems: 'menuItems',
  sessionGuid: 'session-guid',
  skip2fa: 'skip-2fa',
  mfaComplete: 'mfa-complete',
  redirect: 'redirect',
  tokenRedirect: 'token-redirect',
  tokenTarget: 'token-target',
} as const;

export type StorageKey = (typeof storageKeys)[keyof typeof storageKeys];
