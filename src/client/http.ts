/**
 * The `cashline` client's HTTP side: it talks to a running service and
 * nothing else (no store code is loaded). Errors map to the kinds of spec 7.
 */

/** Where the CLI and the MCP server look for the service when no base URL is given. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

export const ERROR_KINDS = {
  auth_required: 3,
  invalid_scope: 4,
  quota_exhausted: 5,
  not_found: 6,
  bad_request: 7,
  server_error: 8,
  network_error: 9,
  validation_error: 2,
} as const;
export type ErrorKind = keyof typeof ERROR_KINDS;

export class CliError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
  get exitCode(): number {
    return ERROR_KINDS[this.kind];
  }
  /** `error: <kind> - <message>` with a retry hint when the server gave one (spec 7). */
  format(): string {
    return `error: ${this.kind} - ${this.message}${this.retryAfterSeconds !== undefined ? ` (retry after ${this.retryAfterSeconds}s)` : ''}`;
  }
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  orgId?: string | undefined;
  tool: string;
  timeoutMs?: number;
}

/** Whether a failed fetch was the connection reset or closed under it (not a refused connection, a DNS failure or a timeout). */
function connectionReset(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

export async function getJson(opts: ClientOptions, path: string, query: Record<string, string | undefined> = {}): Promise<unknown> {
  const url = new URL(path, opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
  const send = () =>
    fetch(url, {
      headers: {
        authorization: `Bearer ${opts.apiKey}`,
        accept: 'application/json',
        'x-service-tool': opts.tool,
        ...(opts.orgId ? { 'x-service-org-id': opts.orgId } : {}),
      },
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
  let res: Response;
  try {
    try {
      res = await send();
    } catch (err) {
      // A kept-alive connection the server closed as this request went out: a GET is safe to send once more, on a new one.
      if (!connectionReset(err)) throw err;
      res = await send();
    }
  } catch (err) {
    throw new CliError('network_error', `cannot reach ${url.origin}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  if (res.ok) return body;
  const e = (body ?? {}) as { error?: string; message?: string };
  const message = e.message ?? e.error ?? `HTTP ${res.status}`;
  const retry = res.headers.get('retry-after');
  const retryAfter = retry && /^\d+$/.test(retry) ? Number(retry) : undefined;
  if (res.status === 401) throw new CliError('auth_required', message);
  if (res.status === 403) throw new CliError('invalid_scope', message);
  if (res.status === 404) throw new CliError('not_found', message);
  if (res.status === 429) throw new CliError('quota_exhausted', message, retryAfter);
  if (res.status >= 400 && res.status < 500) throw new CliError('bad_request', message);
  throw new CliError('server_error', message, retryAfter);
}

/**
 * The organisation a request is for, when a path needs it (the daily brief):
 * the explicit one, else the key's own organisation from /status (never
 * charged). A partner key without an organisation is a validation_error.
 */
export async function orgOfRequest(opts: ClientOptions, how: string): Promise<string> {
  if (opts.orgId) return opts.orgId;
  const status = (await getJson({ ...opts, tool: opts.tool }, '/api/agent/status')) as { key?: { orgId?: string | null } } | undefined;
  const orgId = status?.key?.orgId;
  if (!orgId) throw new CliError('validation_error', `this key is not bound to one organisation: ${how}`);
  return orgId;
}
