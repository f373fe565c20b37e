/**
 * API errors: every error body is `{error, message}` (plus `parameter` on a
 * 400 about one parameter) with the codes of decisions.md, never a stack
 * trace. Handlers and middleware `throw` an `ApiError` (or one of the helpers
 * below); the app's error handler (`errorResponse`) shapes it. Anything else
 * thrown is a 500 `internal_error`, or a 503 `service_unavailable` (with
 * Retry-After) when the store cannot be reached.
 */
import type { Context } from 'hono';
import { ParamError } from '../domain/list-params.js';
import type { ErrorCode } from '../schemas/common.js';

export type ApiErrorStatus = 400 | 401 | 403 | 404 | 405 | 429 | 500 | 503;

export class ApiError extends Error {
  constructor(
    readonly status: ApiErrorStatus,
    readonly code: ErrorCode,
    message: string,
    readonly extra: { parameter?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The one 401 message: missing, malformed, unknown, wrong-secret and revoked keys are not told apart (spec 7). */
export const UNAUTHORIZED_MESSAGE = 'A valid API key is required: Authorization: Bearer <key>.';

export const unauthorized = () => new ApiError(401, 'unauthorized', UNAUTHORIZED_MESSAGE);
/** A malformed known parameter: 400 bad_request naming it in `parameter` and in the message (decisions.md). */
export const badRequest = (parameter: string, message: string) =>
  new ApiError(400, 'bad_request', `${parameter}: ${message}`, { parameter });
/** An unknown (or other-organisation) id: 404 not_found (decisions.md: never 403 for ids). */
export const notFound = (what = 'resource') => new ApiError(404, 'not_found', `No such ${what}.`);
/** Cross-tenant access: 403 forbidden. */
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);
export const insufficientScope = (scope: string) =>
  new ApiError(403, 'insufficient_scope', `This endpoint needs the scope ${scope}.`);
export const orgRequired = () =>
  new ApiError(400, 'org_required', 'Partner keys must name the organisation: header X-Service-Org-Id (or query orgId).', {
    parameter: 'X-Service-Org-Id',
  });

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  parameter?: string;
}

export function errorBody(err: ApiError): ErrorBody {
  return { error: err.code, message: err.message, ...(err.extra.parameter ? { parameter: err.extra.parameter } : {}) };
}

/** Seconds a client should wait after a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)|PGlite is closed|Redis unavailable/i;

/** Whether an error means the store (or another backing service) cannot be reached right now. */
export function isUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const x = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof x.code === 'string' && UNAVAILABLE_CODES.has(x.code)) return true;
    if (typeof x.message === 'string' && UNAVAILABLE_MESSAGES.test(x.message)) return true;
    e = x.cause;
  }
  return false;
}

/**
 * The innermost cause of an error as `{code, message}`: the driver's own words
 * ("connect ECONNREFUSED", "terminating connection due to administrator
 * command"), never the wrapping "Failed query: <SQL> params: <values>".
 */
export function rootCause(err: unknown): { code?: string; message: string } {
  let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e?.cause && depth < 6; depth++) e = e.cause as typeof e;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.message === 'string' && !e.message.startsWith('Failed query') ? e.message : 'store error';
  return { ...(code ? { code } : {}), message: message.slice(0, 200) };
}

/**
 * The response for anything thrown while answering: an ApiError as it says,
 * a store outage as 503, anything else as a 500 without details (logged with
 * the request id).
 */
export function errorResponse(c: Context, thrown: unknown): Response {
  // A bad parameter found past the schema (a summary window that runs backwards): the same 400 as the schema's.
  const err = thrown instanceof ParamError ? badRequest(thrown.parameter, thrown.message) : thrown;
  if (err instanceof ApiError) {
    if (err.extra.retryAfterSeconds !== undefined) c.header('Retry-After', String(err.extra.retryAfterSeconds));
    if (err.status === 401) c.header('WWW-Authenticate', 'Bearer realm="cashline"');
    return c.json(errorBody(err), err.status);
  }
  const logger = (c.get('deps') as { logger?: { warn: Function; error: Function } } | undefined)?.logger;
  const requestId = c.get('requestId') as string | undefined;
  if (isUnavailable(err)) {
    logger?.warn({ requestId, cause: rootCause(err) }, 'store unavailable');
    c.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    return c.json({ error: 'service_unavailable', message: 'The service is temporarily unavailable; retry shortly.' } satisfies ErrorBody, 503);
  }
  logger?.error({ requestId, err }, 'unhandled error');
  return c.json({ error: 'internal_error', message: 'Internal error.' } satisfies ErrorBody, 500);
}
