import type { ErrorBody, ErrorCode } from '@entry/domain';

/**
 * The error the server throws on purpose, and the shape of a refusal's row (refusals.ts and
 * operator-refusals.ts hold the rows; `refuse` makes the error of one).
 */

export interface FieldError {
  field: string;
  message: string;
}

/** The one error type the server throws on purpose; the error handler turns it into the error body. */
export class ApiError extends Error {
  /** Sent as `Retry-After`: when the refused caller may try again. */
  retryAfterSeconds: number | undefined;
  /** A refused verification answer: the answers left before a lock, and a lock's end, where known. */
  attempts: AttemptsLeft | undefined;
  /** A call that needs a second factor used lately: the client asks for one and retries. */
  stepUpRequired = false;

  constructor(
    readonly status: number,
    readonly errorCode: ErrorCode,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** This refusal, saying that the caller may try again at `until`, when that is known. */
  retryAt(until: Date | null, now: Date): this {
    if (until !== null)
      this.retryAfterSeconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
    return this;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { errorCode: this.errorCode, message: this.message, errors: this.errors };
    if (this.attempts?.triesLeft !== undefined && this.attempts.triesLeft !== null) {
      body.triesLeft = this.attempts.triesLeft;
    }
    if (this.attempts?.lockedUntil) body.lockedUntil = this.attempts.lockedUntil.toISOString();
    if (this.stepUpRequired) body.stepUpRequired = true;
    return body;
  }
}

/** What a verification's budget says after a refused answer, beside the refusal's message. */
export interface AttemptsLeft {
  /** Null when the budget cannot say (the rows vanished meanwhile). */
  triesLeft: number | null;
  lockedUntil: Date | null;
}

export interface RefusalRow {
  status: number;
  errorCode: ErrorCode;
  /** A function when the text names the refused value; it takes one argument, the detail. */
  message: string | ((detail: never) => string);
  /** The fields the error items name, each with the refusal's message. */
  fields?: readonly string[];
  /** Sets `stepUpRequired` in the error body. */
  stepUpRequired?: boolean;
}
