import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, type FieldError } from './api-error.ts';
import { ClientGoneError, clientClosedRequest } from './client-gone.ts';
import { isDatabaseOutage } from './db/availability.ts';
import { databaseUnavailableRefusal } from './dependency-outages.ts';
import { refusals, refuse } from './refusals.ts';

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
    return { field, message: issue.message ?? refusals.invalidValue.message };
  });
}

/** Maps every failure to the error body; a 5xx never carries details or a stack trace. */
function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseOutage(error)) return databaseUnavailableRefusal();
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastifyError)) {
    return refuse('invalidValue', { errors: validationErrors(fastifyError) });
  }
  if (fastifyError.code === 'FST_ERR_RESPONSE_SERIALIZATION') return refuse('unknown');
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return refuse('invalidJson');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return refuse('bodyTooLarge');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return refuse('unsupportedMediaType');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return refuse('invalidContentLength');
  }
  if (
    fastifyError.statusCode !== undefined &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    return refuse('invalidValue');
  }
  return refuse('unknown');
}

export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ClientGoneError) {
    // Fastify logs no line for a request whose connection is gone, and no one reads this answer.
    reply.status(clientClosedRequest);
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, error.message);
    return reply.send();
  }
  const apiError = toApiError(error);
  // A refusal is deliberate, and an outage of the database is logged once where it is noticed.
  if (apiError.status >= 500 && !(error instanceof ApiError) && !isDatabaseOutage(error)) {
    request.log.error({ err: error, reqId: request.id }, 'unexpected error');
  }
  if (apiError.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(apiError.retryAfterSeconds));
  return reply.status(apiError.status).type('application/json; charset=utf-8').send(apiError.toBody());
}
