import type { AuthTokenResult, ErrorBody } from '@entry/domain';
import type { ClientHooks } from './http.ts';
import type { KeyValueStorage } from './token-store.ts';

/** Test doubles shared by the client's tests: storage, clock, hooks and a scripted fetch. */

export function memoryStorage(initial: Record<string, string> = {}): KeyValueStorage & {
  entries(): Record<string, string>;
} {
  const items = new Map(Object.entries(initial));
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, String(value));
    },
    removeItem: (key) => {
      items.delete(key);
    },
    entries: () => Object.fromEntries(items),
  };
}

export function manualClock(startMs = Date.UTC(2025, 0, 15, 12, 0, 0)): {
  now: () => number;
  advanceMinutes(minutes: number): void;
} {
  let current = startMs;
  return {
    now: () => current,
    advanceMinutes(minutes) {
      current += minutes * 60_000;
    },
  };
}

export interface RecordingHooks extends ClientHooks {
  notified: string[];
  wentToRoot: number;
  updateChecks: number;
}

export function recordingHooks(): RecordingHooks {
  const hooks: RecordingHooks = {
    notified: [],
    wentToRoot: 0,
    updateChecks: 0,
    notify: (message) => {
      hooks.notified.push(message);
    },
    goToRoot: () => {
      hooks.wentToRoot += 1;
    },
    requestUpdateCheck: () => {
      hooks.updateChecks += 1;
    },
  };
  return hooks;
}

export interface SentRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | null;
}

export type Responder = (request: SentRequest) => Response | Promise<Response>;

/** A fetch that answers through `respond` and keeps every request it was given. */
export function scriptedFetch(respond: Responder): typeof fetch & { sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const fake = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request: SentRequest = {
      method: init?.method ?? 'GET',
      url: new URL(String(input), 'http://sender.localhost:8080'),
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? init.body : null,
    };
    sent.push(request);
    return respond(request);
  };
  return Object.assign(fake, { sent });
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export function errorBody(errorCode: ErrorBody['errorCode'], message = 'Refused.'): ErrorBody {
  return { errorCode, message, errors: [] };
}

/** A three-segment token whose payload carries `user.context.roleId`, like the server's. */
export function jwtWith(payload: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'EdDSA' })}.${encode(payload)}.signature`;
}

export function authTokenResult(overrides: Partial<AuthTokenResult> = {}): AuthTokenResult {
  return {
    accessToken: jwtWith({ user: { context: { roleId: 7 } } }),
    accessTokenExpiresIn: 15,
    refreshToken: 'refresh-token',
    refreshTokenExpiresIn: 60,
    sessionGuid: 'session-1',
    accessType: 'Consumer',
    hasRestrictedAccess: false,
    ...overrides,
  };
}

export function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/**
 * A LockManager that grants each name to one holder at a time, like the browser's. `onGrant` runs
 * when a lock is granted, before the holder's callback: a test plays another tab there.
 */
export function fakeLockManager(onGrant: (name: string) => void = () => undefined): LockManager & {
  granted: string[];
} {
  const queues = new Map<string, Promise<unknown>>();
  const granted: string[] = [];
  async function request<T>(name: string, ...rest: unknown[]): Promise<T> {
    const callback = rest.at(-1) as (lock: Lock | null) => T | Promise<T>;
    const previous = queues.get(name) ?? Promise.resolve();
    const turn = previous.then(async () => {
      granted.push(name);
      onGrant(name);
      return callback({ name, mode: 'exclusive' });
    });
    queues.set(
      name,
      turn.catch(() => undefined),
    );
    return turn;
  }
  return {
    granted,
    request: request as LockManager['request'],
    query: async () => ({ held: [], pending: [] }),
  };
}

/** Lets every pending promise chain run as far as it can (one macrotask turn). */
export function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
