import {
  errorBodySchema,
  errorMessages,
  parameterMustBeDefinedMessage,
  type Scope,
  tokenStorageKey,
} from '@entry/domain';
import { safeParse } from 'zod/v4/core';
import { ApiError } from './api-error.ts';
import { authPath, authTokenReader } from './auth-paths.ts';
import { parseRetryAfter } from './retry-after.ts';
import type { TokenStore } from './token-store.ts';
import type { ResponseReader } from './wire.ts';

/** What the client asks of the app around it. */
export interface ClientHooks {
  /** Shows a message in the snack-bar. */
  notify(message: string): void;
  /** Navigates to the root of the app. */
  goToRoot(): void;
  /** Asks the service worker to look for a new version of the app. */
  requestUpdateCheck(): void;
}

export interface HttpClientOptions {
  /** The scope whose token a call sends and checks unless the call names another. */
  scope: Scope;
  tokens: TokenStore;
  hooks: ClientHooks;
  fetch?: typeof fetch | undefined;
  /** Prepended to every path; '' (the default) is the page's own origin. */
  baseUrl?: string | undefined;
  /** `navigator.locks` where the browser has it: tabs of one origin then refresh one at a time. */
  locks?: LockManager | undefined;
  /** The clock an HTTP-date `Retry-After` is read against. */
  now?: (() => number) | undefined;
  /**
   * A call without an answer after this long is given up as a network error. Only for clients
   * that never refresh: a refresh given up here may have rotated the token on the server.
   */
  timeoutMs?: number | undefined;
}

/** What the page that makes a call does with its failures. */
export interface CallOptions {
  /**
   * The page shows its own message for every failure of this call, so the snack-bar stays silent
   * (docs/decisions/026). An ended session is still announced: no page explains that.
   */
  explainedByPage?: boolean | undefined;
}

type QueryValue = string | number | boolean | null | undefined;

export interface CallSpec extends CallOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path under the base URL, starting with `/api/`, path parameters already encoded. */
  path: string;
  /** Null and undefined values are left out. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** The statuses the call's contract lists (docs/rules.md#errors); 400, 401, 403 and 429 always are. */
  listed: readonly number[];
  /** Whose token is sent, checked and refreshed; the client's scope by default. */
  scope?: Scope;
  /**
   * - `required` (the default), for calls that need a session: wait for a refresh in flight, end an
   *   expired session, refresh a stale token first.
   * - `optional`, for calls anyone may make (a link's token, a domain, an e-mail preference): wait
   *   for a refresh in flight and send the token only while it has not expired, so a session that
   *   ended earlier in the tab does not stop a person who follows a new link.
   * - `skip`: send at once (refresh, sign-out, and the sign-ins, which start a session).
   * - `none`: send at once and without the tab's token, for a call that must not be bound to the
   *   session the tab may hold (a usernameless passkey sign-in).
   */
  session?: 'required' | 'optional' | 'skip' | 'none';
  /** A step of signing in: its page shows every refusal itself, and a 401 does not end a session. */
  signInStep?: boolean;
}

export interface HttpClient {
  readonly scope: Scope;
  readonly tokens: TokenStore;
  /** Answers the reader's value on 200; any other outcome rejects with an `ApiError`. */
  call<T>(spec: CallSpec & { reader: ResponseReader<T> }): Promise<T>;
  /** For calls answered with 204 (a 200 is accepted too). */
  call(spec: CallSpec): Promise<void>;
  /**
   * Refreshes the scope's session with its refresh call and stores the new token. Concurrent
   * callers share one refresh. With `onlyIfStale`, the token is read again once the lock is held
   * and the call is skipped when it is no longer stale (another tab or caller refreshed it).
   */
  refresh(scope: Scope, options?: { onlyIfStale?: boolean }): Promise<void>;
}

/** Every call may also answer these, each with an error body (docs/rules.md#errors). */
const alwaysListedStatuses: readonly number[] = [400, 401, 403, 429];

/** Not a text of the specification: the snack-bar stays quiet for it, the caller's page shows it. */
export const networkErrorMessage =
  'The server could not be reached. Please check the connection and try again.';

export function requireParameter(name: string, value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '' || Number.isNaN(value)) {
    throw new ApiError('parameter', parameterMustBeDefinedMessage(name));
  }
  return encodeURIComponent(String(value));
}

function refreshLockName(scope: Scope): string {
  return `${tokenStorageKey(scope)}-refresh`;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const { tokens, hooks, locks } = options;
  const now = options.now ?? Date.now;
  const baseUrl = options.baseUrl ?? '';
  const send: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const refreshesInFlight = new Map<Scope, Promise<void>>();

  function endSession(scope: Scope, details: ConstructorParameters<typeof ApiError>[2] = {}): never {
    // Several calls can fail together; the person hears it and leaves for the root once.
    if (tokens.get({ scope }) !== null) {
      hooks.notify(errorMessages.connectionLost);
      tokens.remove({ scope });
      hooks.goToRoot();
    }
    throw new ApiError('notAuthorized', errorMessages.tokenExpired, details);
  }

  /** Waits for the session the call needs; answers the token to send ('' for none). */
  async function authorize(scope: Scope, session: CallSpec['session']): Promise<string> {
    if (session === 'none') return '';
    if (session === 'skip') return tokens.state({ scope }).token;
    const inFlight = refreshesInFlight.get(scope);
    if (inFlight) await inFlight;
    const state = tokens.state({ scope });
    if (state.token === '') return '';
    if (session === 'optional') return state.expired ? '' : state.token;
    if (state.expired) endSession(scope);
    // A restricted token only serves the second step or enrolment; the server does not refresh it.
    if (!state.stale || state.restricted) return state.token;
    await refresh(scope, { onlyIfStale: true });
    return tokens.state({ scope }).token;
  }

  function refresh(scope: Scope, refreshOptions: { onlyIfStale?: boolean } = {}): Promise<void> {
    const inFlight = refreshesInFlight.get(scope);
    if (inFlight) return inFlight;
    const refreshing = refreshUnderLock(scope, refreshOptions.onlyIfStale ?? false).finally(() =>
      refreshesInFlight.delete(scope),
    );
    refreshesInFlight.set(scope, refreshing);
    return refreshing;
  }

  async function refreshUnderLock(scope: Scope, onlyIfStale: boolean): Promise<void> {
    const refreshNow = async (): Promise<void> => {
      if (onlyIfStale) {
        const state = tokens.state({ scope });
        if (state.token === '' || !state.stale) return;
      }
      const refreshedFrom = tokens.get({ scope });
      const result = await call({
        method: 'POST',
        path: authPath(scope, 'refresh'),
        reader: authTokenReader,
        listed: [401],
        scope,
        session: 'skip',
      });
      // A sign-out (or an idle timeout) while the refresh was on its way ended the session here;
      // its answer must not store the session again.
      if (refreshedFrom !== null && tokens.get({ scope }) === null) return;
      tokens.set(result, { scope });
    };
    if (locks) await locks.request(refreshLockName(scope), refreshNow);
    else await refreshNow();
  }

  function failed(error: ApiError, scope: Scope, sentWithBearer: boolean, spec: CallSpec): never {
    hooks.requestUpdateCheck();
    // A sign-in page explains every refusal in words of its own (a wrong answer, a lock); the generic
    // "try again later" beside it would tell the person the opposite (docs/decisions/005).
    if (spec.signInStep) throw error;
    if (error.status === 401) {
      if (sentWithBearer) {
        endSession(scope, { status: error.status, response: error.response, body: error.body });
      }
    }
    if (spec.explainedByPage) throw error;
    if (error.errorCode !== undefined && error.errorCode !== 'NotAuthorized') {
      hooks.notify(errorMessages.serverError);
    } else if (error.status !== undefined) {
      hooks.notify(errorMessages.unknownError);
    }
    throw error;
  }

  function call<T>(spec: CallSpec & { reader: ResponseReader<T> }): Promise<T>;
  function call(spec: CallSpec): Promise<void>;
  async function call<T>(spec: CallSpec & { reader?: ResponseReader<T> }): Promise<T | undefined> {
    const scope = spec.scope ?? options.scope;
    const token = await authorize(scope, spec.session);

    const headers = new Headers({ 'Content-Type': 'application/json' });
    const sessionGuid = tokens.sessionGuid();
    if (sessionGuid) headers.set('session-guid', sessionGuid);
    if (token !== '') headers.set('Authorization', `Bearer ${token}`);

    const abort = options.timeoutMs === undefined ? undefined : new AbortController();
    const timer =
      abort === undefined
        ? undefined
        : setTimeout(
            () => abort.abort(new DOMException('No answer in time.', 'TimeoutError')),
            options.timeoutMs,
          );
    let response: Response;
    try {
      response = await send(urlOf(baseUrl, spec), {
        method: spec.method,
        headers,
        body: spec.body === undefined ? null : JSON.stringify(spec.body),
        ...(abort === undefined ? {} : { signal: abort.signal }),
      });
    } catch (cause) {
      return failed(new ApiError('network', networkErrorMessage, { cause }), scope, token !== '', spec);
    } finally {
      clearTimeout(timer);
    }

    const { status } = response;
    if (status === 200 || status === 204) {
      if (!spec.reader) return undefined;
      const value = status === 200 ? spec.reader.read(await jsonOf(response)) : { ok: false as const };
      if (value.ok) return value.value;
      return failed(
        new ApiError('unexpected', errorMessages.unexpectedStatus, { status, response }),
        scope,
        token !== '',
        spec,
      );
    }
    const retryAfterSeconds = parseRetryAfter(response.headers.get('Retry-After'), now());
    const error =
      alwaysListedStatuses.includes(status) || spec.listed.includes(status)
        ? new ApiError('listed', errorMessages.listedStatus, {
            status,
            response,
            body: safeParse(errorBodySchema, await jsonOf(response)).data,
            retryAfterSeconds,
          })
        : new ApiError('unexpected', errorMessages.unexpectedStatus, { status, response, retryAfterSeconds });
    return failed(error, scope, token !== '', spec);
  }

  return { scope: options.scope, tokens, call, refresh };
}

function urlOf(baseUrl: string, spec: CallSpec): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(spec.query ?? {})) {
    if (value !== null && value !== undefined) query.append(name, String(value));
  }
  const search = query.toString();
  return `${baseUrl}${spec.path}${search === '' ? '' : `?${search}`}`;
}

/** The body as JSON, read from a clone so the caller's raw response stays readable; undefined when it is not JSON. */
async function jsonOf(response: Response): Promise<unknown> {
  try {
    return await response.clone().json();
  } catch {
    return undefined;
  }
}
