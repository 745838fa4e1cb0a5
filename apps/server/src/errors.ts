import type { ErrorBody, ErrorCode } from '@entry/domain';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ClientGoneError, clientClosedRequest } from './client-gone.ts';

export interface FieldError {
  field: string;
  message: string;
}

/** The one error type the server throws on purpose; the error handler turns it into the error body. */
export class ApiError extends Error {
  /** Sent as `Retry-After`: when the refused caller may try again. */
  retryAfterSeconds: number | undefined;

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
    return { errorCode: this.errorCode, message: this.message, errors: this.errors };
  }
}

/** Our own texts for the server's answers (the spec leaves them open). */
export const apiMessages = {
  invalidValue: 'The request is not valid.',
  invalidJson: 'The request body is not valid JSON.',
  nulCharacter: 'The value must not contain a NUL character.',
  bodyTooLarge: 'The request body is too large.',
  unsupportedMediaType: 'The request body has a content type this call does not accept.',
  notFound: 'The requested item was not found.',
  routeNotFound: 'There is no such API call.',
  notAuthorized: 'You are not signed in, or your session has ended.',
  notPermitted: 'Your session does not allow this call.',
  crossSite: 'This call is not accepted from another site.',
  unknown: 'Something went wrong on our side. Please try again later.',
  invalidSignIn: 'The username or password is not correct.',
  userLocked: 'This account is locked for a while after too many failed attempts. Please try again later.',
  passwordExpired: 'Your password has expired. Please choose a new one.',
  invalidResetToken:
    'This password reset link has already been used or has expired. Please request a new one.',
  invalidLaunchToken: 'This launch link has already been used or has expired.',
  wrongCurrentPassword: 'The current password is not correct.',
} as const;

export const notFound = (message: string = apiMessages.notFound) =>
  new ApiError(404, 'ItemNotFound', message);
export const notAuthorized = () => new ApiError(401, 'NotAuthorized', apiMessages.notAuthorized);
export const notPermitted = () => new ApiError(403, 'NotPermitted', apiMessages.notPermitted);
export const invalidValue = (field: string, message: string) =>
  new ApiError(400, 'InvalidValue', message, [{ field, message }]);

function validationErrors(error: FastifyError): FieldError[] {
  if (!hasZodFastifySchemaValidationErrors(error)) return [];
  const context = error.validationContext ?? 'request';
  return error.validation.map((issue) => {
    const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const unknownKeys =
      issue.keyword === 'unrecognized_keys' ? (issue.params as { keys?: string[] }).keys : [];
    const field = unknownKeys?.length
      ? [path, unknownKeys.join(', ')].filter(Boolean).join('.')
      : path || context;
    return { field, message: issue.message ?? apiMessages.invalidValue };
  });
}

/** Maps every failure to the error body; a 5xx never carries details or a stack trace. */
export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastifyError)) {
    return new ApiError(400, 'InvalidValue', apiMessages.invalidValue, validationErrors(fastifyError));
  }
  if (fastifyError.code === 'FST_ERR_RESPONSE_SERIALIZATION') {
    return new ApiError(500, 'Unknown', apiMessages.unknown);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidValue('body', apiMessages.invalidJson);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidValue('body', apiMessages.bodyTooLarge);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'InvalidValue', apiMessages.unsupportedMediaType, [
        { field: 'body', message: apiMessages.unsupportedMediaType },
      ]);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidValue('body', apiMessages.unsupportedMediaType);
  }
  if (
    fastifyError.statusCode !== undefined &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    return new ApiError(400, 'InvalidValue', apiMessages.invalidValue);
  }
  return new ApiError(500, 'Unknown', apiMessages.unknown);
}

export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ClientGoneError) {
    // Fastify logs no line for a request whose connection is gone, and no one reads this answer.
    reply.status(clientClosedRequest);
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, error.message);
    return reply.send();
  }
  const apiError = toApiError(error);
  if (apiError.status >= 500) {
    request.log.error({ err: error, reqId: request.id }, 'unexpected error');
  }
  if (apiError.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(apiError.retryAfterSeconds));
  return reply.status(apiError.status).type('application/json; charset=utf-8').send(apiError.toBody());
}
