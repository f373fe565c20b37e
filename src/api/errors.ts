/**
 * API errors: `{error, message}` bodies with the codes of decisions.md, never
 * a stack trace. Handlers throw `ApiError`s; the app's error handler shapes them.
 */
import type { ErrorCode } from '../schemas/common.js';

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 429 | 500 | 503,
    readonly code: ErrorCode,
    message: string,
    readonly extra: { parameter?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The one 401 body: missing, malformed, unknown, wrong-secret and revoked keys are not told apart. */
export const UNAUTHORIZED_MESSAGE = 'A valid API key is required: Authorization: Bearer <key>.';

export const unauthorized = () => new ApiError(401, 'unauthorized', UNAUTHORIZED_MESSAGE);
export const badRequest = (parameter: string, message: string) =>
  new ApiError(400, 'bad_request', `${parameter}: ${message}`, { parameter });
export const notFound = (what = 'resource') => new ApiError(404, 'not_found', `No such ${what}.`);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);

export function errorBody(err: ApiError): { error: ErrorCode; message: string; parameter?: string } {
  return { error: err.code, message: err.message, ...(err.extra.parameter ? { parameter: err.extra.parameter } : {}) };
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

/** Whether an error means the store (or another backing service) cannot be reached right now. */
export function isUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const x = e as { code?: string; message?: string; cause?: unknown };
    if (x.code && UNAVAILABLE_CODES.has(x.code)) return true;
    if (typeof x.message === 'string' && /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)|Redis unavailable/i.test(x.message)) {
      return true;
    }
    e = x.cause;
  }
  return false;
}
