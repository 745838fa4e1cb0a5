import type { ErrorBody, ErrorCode } from '@entry/domain';

/**
 * - `listed`: a status the call's contract lists (docs/rules.md#errors).
 * - `unexpected`: any other status but 200 and 204, or a 200 whose body breaks the wire schema.
 * - `notAuthorized`: the session is gone (expired token, or a 401 on a call sent with a bearer token).
 * - `parameter`: a client-side check failed; nothing was sent.
 * - `network`: the request never got an answer.
 */
export type ApiErrorKind = 'listed' | 'unexpected' | 'notAuthorized' | 'parameter' | 'network';

export interface ApiErrorDetails {
  status?: number | undefined;
  response?: Response | undefined;
  body?: ErrorBody | undefined;
  retryAfterSeconds?: number | undefined;
  cause?: unknown;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly status: number | undefined;
  /** The raw response; its body is still unread (the client reads a clone). */
  readonly response: Response | undefined;
  /** The parsed error body of a listed status, when the server sent one. */
  readonly body: ErrorBody | undefined;
  /** How long the server asks to wait before trying again (its `Retry-After`), when it said so. */
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ApiErrorKind, message: string, details: ApiErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status;
    this.response = details.response;
    this.body = details.body;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }

  get errorCode(): ErrorCode | undefined {
    return this.body?.errorCode;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/**
 * The server could not be reached or could not answer: no answer at all, none in time, or a 5xx.
 * The same call may work a moment later, so a page offers to try again.
 */
export function isUnreachable(error: unknown): boolean {
  return (
    isApiError(error) && (error.kind === 'network' || (error.status !== undefined && error.status >= 500))
  );
}
