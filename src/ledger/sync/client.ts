/**
 * The Xero HTTP client of the sync (docs/sync.md): OAuth2 refresh before
 * expiry and on a 401, Xero's limits (5 calls in flight, 60 a minute per
 * tenant), Retry-After honoured, retries with exponential backoff and full
 * jitter for 5xx, timeouts, dropped connections and unreadable bodies, no
 * redirect to another host ever followed, and every answer bounded in size
 * and time. Tokens live in the store (`TokenStore`), so a refresh token
 * rotated by one call is never lost.
 */
import { parseXeroJson } from '../xero/json.js';

export interface Tokens {
  accessToken: string | null;
  /** Epoch ms. */
  expiresAt: number | null;
  refreshToken: string | null;
}

export interface TokenStore {
  load(): Promise<Tokens>;
  /** Called with the new tokens as soon as the identity server issued them. */
  save(t: Tokens): Promise<void>;
}

export interface XeroClientOptions {
  apiUrl: string;
  identityUrl: string;
  clientId: string;
  /** A confidential (web) app's secret; absent for a PKCE-only app, which refreshes with its client id alone. */
  clientSecret?: string | undefined;
  tenantId: string;
  tokens: TokenStore;
  /** Per request, head and body (default 30 s). */
  timeoutMs?: number;
  /** Largest body read (default 64 MiB). */
  maxBytes?: number;
  /** Attempts per request for retryable failures (default 5). */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A Retry-After longer than this fails the run instead of waiting (default 120 s). */
  maxRetryAfterMs?: number;
  /** Xero's limits (default 60 a minute, 5 concurrent). */
  perMinute?: number;
  concurrent?: number;
  /** The length of the "minute" (tests shorten it; default 60,000). */
  windowMs?: number;
  /** Refresh when the access token has less than this left (default 120 s). */
  refreshMarginMs?: number;
  /** Called on each retry (logs). */
  onRetry?: (e: { path: string; attempt: number; waitMs: number; reason: string }) => void;
  random?: () => number;
}

export type XeroErrorKind =
  | 'http' // a 4xx other than 401/403/429 (not retried)
  | 'forbidden' // 403, or 401 AuthorizationUnsuccessful: a scope not granted, an endpoint the app may not call (not retried)
  | 'server' // 5xx after the retries
  | 'rate_limited' // 429 whose wait is too long, or after the retries
  | 'timeout'
  | 'network'
  | 'too_large'
  | 'redirect'
  | 'malformed'
  | 'auth' // the API refused the token even after a refresh
  | 'token_revoked' // the identity server refused the refresh token
  | 'token_expired';

export class XeroError extends Error {
  constructor(
    readonly kind: XeroErrorKind,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'XeroError';
  }
  /** Whether a later run may succeed without the operator (everything but token failures). */
  get needsReconnect(): boolean {
    return this.kind === 'token_revoked' || this.kind === 'token_expired';
  }
}

const RETRYABLE = new Set<XeroErrorKind>(['server', 'timeout', 'network', 'malformed', 'rate_limited']);

/** A call's place in the window: open while in flight, then stamped with the time its answer arrived. */
interface WindowStamp {
  at: number;
  open: boolean;
}

/**
 * A counting semaphore plus a sliding one-minute window: Xero's per-tenant
 * limits. A call counts in the window until a full window after its answer
 * arrived (not after it was sent): Xero counts a call when it receives it,
 * which is between the two, so however long a request takes on the way the
 * server never sees more calls in any window than the client allowed.
 */
export class RateGate {
  private active = 0;
  private waiting: (() => void)[] = [];
  private stamps: WindowStamp[] = [];
  constructor(
    private readonly concurrent: number,
    private readonly perMinute: number,
    /** The window (Xero: a minute); a small margin is added for clock granularity. */
    private readonly windowMs = 60_000,
  ) {}

  async acquire(): Promise<WindowStamp> {
    if (this.active >= this.concurrent) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    // Holding a slot: wait for room in the minute window.
    const span = this.windowMs + Math.min(1000, this.windowMs / 20);
    for (;;) {
      const now = Date.now();
      this.stamps = this.stamps.filter((s) => s.open || s.at > now - span);
      if (this.stamps.length < this.perMinute) {
        const stamp = { at: now, open: true };
        this.stamps.push(stamp);
        return stamp;
      }
      // The first closed call to leave the window frees a place; with every counted call still in flight, look again shortly.
      const closed = this.stamps.filter((s) => !s.open).map((s) => s.at);
      await sleep(closed.length ? Math.max(1, Math.min(...closed) + span - now + 5) : 20);
    }
  }

  release(stamp: WindowStamp): void {
    stamp.open = false;
    stamp.at = Date.now();
    const next = this.waiting.shift();
    if (next) next(); // the slot passes on
    else this.active--;
  }
}

export interface XeroResponse {
  status: number;
  body: unknown;
  bytes: number;
}

export class XeroClient {
  private readonly o: Required<Omit<XeroClientOptions, 'onRetry' | 'clientSecret'>> & Pick<XeroClientOptions, 'onRetry' | 'clientSecret'>;
  private readonly gate: RateGate;
  private refreshing: Promise<string> | null = null;
  private access: { token: string; expiresAt: number } | null = null;
  /** Calls made (attempts included), and retries. */
  readonly stats = { calls: 0, retries: 0, refreshes: 0, bytes: 0 };

  constructor(opts: XeroClientOptions) {
    this.o = {
      timeoutMs: 30_000,
      maxBytes: 64 * 1024 * 1024,
      maxAttempts: 5,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      maxRetryAfterMs: 120_000,
      perMinute: 60,
      concurrent: 5,
      windowMs: 60_000,
      refreshMarginMs: 120_000,
      random: Math.random,
      ...opts,
    };
    this.gate = new RateGate(this.o.concurrent, this.o.perMinute, this.o.windowMs);
  }

  /** GET an Accounting API path (e.g. '/Invoices') with query and If-Modified-Since; retried per the rules above. */
  async get(path: string, query: Record<string, string> = {}, ifModifiedSince: Date | null = null): Promise<XeroResponse> {
    const qs = new URLSearchParams(query).toString();
    const url = `${this.o.apiUrl}${path}${qs ? `?${qs}` : ''}`;
    let refreshedFor401 = false;
    for (let attempt = 1; ; attempt++) {
      const token = await this.accessToken();
      let wait: number;
      let reason: string;
      try {
        const headers: Record<string, string> = {
          authorization: `Bearer ${token}`,
          'xero-tenant-id': this.o.tenantId,
          accept: 'application/json',
        };
        if (ifModifiedSince) headers['if-modified-since'] = ifModifiedSince.toISOString().replace(/Z$/, '');
        return await this.fetchJson(url, { method: 'GET', headers });
      } catch (err) {
        if (!(err instanceof XeroError)) throw err;
        if (err.status === 401 && err.kind !== 'forbidden') {
          if (refreshedFor401) throw new XeroError('auth', `${path}: the ledger refused the access token after a refresh`, 401);
          refreshedFor401 = true;
          this.access = null;
          await this.refresh(token);
          attempt--; // a refresh is not a failed attempt
          continue;
        }
        if (!RETRYABLE.has(err.kind) || attempt >= this.o.maxAttempts) throw err;
        const retryAfter = (err as XeroError & { retryAfterMs?: number }).retryAfterMs;
        if (retryAfter !== undefined) {
          if (retryAfter > this.o.maxRetryAfterMs) {
            throw new XeroError('rate_limited', `${path}: the ledger asks to wait ${Math.round(retryAfter / 1000)} s (Retry-After)`, err.status);
          }
          wait = retryAfter;
        } else {
          const cap = Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** (attempt - 1));
          wait = Math.round(cap / 2 + (this.o.random() * cap) / 2);
        }
        reason = err.message;
      }
      this.stats.retries++;
      this.o.onRetry?.({ path, attempt, waitMs: wait, reason });
      await sleep(wait);
    }
  }

  private async accessToken(): Promise<string> {
    if (this.access && this.access.expiresAt - Date.now() > this.o.refreshMarginMs) return this.access.token;
    const t = await this.o.tokens.load();
    if (t.accessToken && t.expiresAt && t.expiresAt - Date.now() > this.o.refreshMarginMs) {
      this.access = { token: t.accessToken, expiresAt: t.expiresAt };
      return t.accessToken;
    }
    return this.refresh(t.accessToken);
  }

  /** One refresh at a time; callers that saw `stale` fail share it. */
  private refresh(stale: string | null): Promise<string> {
    if (this.access && this.access.token !== stale && this.access.expiresAt - Date.now() > this.o.refreshMarginMs) {
      return Promise.resolve(this.access.token);
    }
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<string> {
    const t = await this.o.tokens.load();
    if (!t.refreshToken) throw new XeroError('token_revoked', 'the ledger connection has no refresh token');
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: t.refreshToken });
    // A web app authenticates with Basic client id and secret; a PKCE-only app sends its client id in the form.
    if (!this.o.clientSecret) form.set('client_id', this.o.clientId);
    const body = form.toString();
    const auth: Record<string, string> = this.o.clientSecret ? { authorization: `Basic ${Buffer.from(`${this.o.clientId}:${this.o.clientSecret}`).toString('base64')}` } : {};
    let res: XeroResponse;
    for (let attempt = 1; ; attempt++) {
      try {
        res = await this.fetchJson(`${this.o.identityUrl}/connect/token`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body,
        }, true);
        break;
      } catch (err) {
        if (err instanceof XeroError && err.status === 400) {
          const e = (err as XeroError & { body?: { error?: string; error_description?: string } }).body;
          if (e?.error === 'invalid_grant') {
            const expired = /expire/i.test(e.error_description ?? '');
            throw new XeroError(expired ? 'token_expired' : 'token_revoked', expired ? 'the refresh token has expired' : 'the refresh token was revoked', 400);
          }
          throw new XeroError('auth', `the identity server refused the refresh (${e?.error ?? 'bad request'})`, 400);
        }
        if (!(err instanceof XeroError) || !RETRYABLE.has(err.kind) || attempt >= this.o.maxAttempts) throw err;
        const cap = Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** (attempt - 1));
        await sleep(Math.round(cap / 2 + (this.o.random() * cap) / 2));
      }
    }
    const b = res.body as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown };
    if (typeof b.access_token !== 'string' || typeof b.expires_in !== 'number') {
      throw new XeroError('malformed', 'the identity server answered without access_token/expires_in');
    }
    const next: Tokens = {
      accessToken: b.access_token,
      expiresAt: Date.now() + b.expires_in * 1000,
      refreshToken: typeof b.refresh_token === 'string' ? b.refresh_token : t.refreshToken,
    };
    await this.o.tokens.save(next);
    this.stats.refreshes++;
    this.access = { token: next.accessToken!, expiresAt: next.expiresAt! };
    return next.accessToken!;
  }

  /**
   * One HTTP exchange under the rate gate: same-origin redirects followed (at
   * most 3), others refused; the body read up to maxBytes within timeoutMs.
   */
  private async fetchJson(url: string, init: RequestInit & { headers: Record<string, string> }, identity = false): Promise<XeroResponse> {
    const stamp = identity ? null : await this.gate.acquire();
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), this.o.timeoutMs);
    try {
      let current = url;
      for (let hop = 0; ; hop++) {
        this.stats.calls++;
        let res: Response;
        try {
          res = await fetch(current, { ...init, redirect: 'manual', signal: ac.signal });
        } catch (err) {
          throw ac.signal.aborted
            ? new XeroError('timeout', `${pathOf(current)}: no answer within ${this.o.timeoutMs} ms`)
            : new XeroError('network', `${pathOf(current)}: ${(err as Error).message}`);
        }
        if (res.status >= 300 && res.status < 400) {
          await res.body?.cancel().catch(() => {});
          const loc = res.headers.get('location');
          const next = loc ? new URL(loc, current) : null;
          if (!next || next.origin !== new URL(current).origin || hop >= 3) {
            throw new XeroError('redirect', `${pathOf(current)}: redirect to ${next ? next.host : 'nowhere'} refused (only the configured ledger host is trusted)`, res.status);
          }
          current = next.toString();
          continue;
        }
        const { text, bytes } = await this.readBounded(res, ac, current);
        this.stats.bytes += bytes;
        let body: unknown;
        try {
          body = text === '' ? null : parseXeroJson(text);
        } catch {
          if (res.ok) throw new XeroError('malformed', `${pathOf(current)}: the body is not JSON (${bytes} bytes)`, res.status);
          body = null;
        }
        if (res.ok) return { status: res.status, body, bytes };
        // Xero refuses a call outside the granted scopes with 401 AuthorizationUnsuccessful (no refresh helps), and an
        // endpoint the app may not call (or a tenant it may no longer read) with 403.
        const refused = res.status === 403 || (res.status === 401 && /AuthorizationUnsuccessful/i.test(detailOf(body)));
        const err = new XeroError(
          res.status === 429 ? 'rate_limited' : res.status >= 500 ? 'server' : refused ? 'forbidden' : 'http',
          `${pathOf(current)}: HTTP ${res.status}${detailOf(body)}`,
          res.status,
        ) as XeroError & { retryAfterMs?: number; body?: unknown };
        err.body = body;
        const ra = retryAfterMs(res.headers.get('retry-after'));
        if (ra !== null && (res.status === 429 || res.status === 503)) err.retryAfterMs = ra;
        else if (res.status === 429) err.retryAfterMs = 60_000;
        throw err;
      }
    } finally {
      clearTimeout(timer);
      if (stamp) this.gate.release(stamp);
    }
  }

  private async readBounded(res: Response, ac: AbortController, url: string): Promise<{ text: string; bytes: number }> {
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > this.o.maxBytes) {
      ac.abort();
      throw new XeroError('too_large', `${pathOf(url)}: the body (${declared} bytes) is over the ${this.o.maxBytes}-byte bound`, res.status);
    }
    if (!res.body) return { text: '', bytes: 0 };
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (bytes > this.o.maxBytes) {
          ac.abort();
          throw new XeroError('too_large', `${pathOf(url)}: the body is over the ${this.o.maxBytes}-byte bound`, res.status);
        }
        chunks.push(value);
      }
    } catch (err) {
      if (err instanceof XeroError) throw err;
      throw ac.signal.aborted
        ? new XeroError('timeout', `${pathOf(url)}: the body did not arrive within ${this.o.timeoutMs} ms`, res.status)
        : new XeroError('network', `${pathOf(url)}: the connection dropped mid-body (${bytes} bytes read)`, res.status);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), bytes };
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function detailOf(body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as { Detail?: unknown; error?: unknown; Message?: unknown };
    const d = b.Detail ?? b.Message ?? b.error;
    if (typeof d === 'string') return `: ${d.slice(0, 200)}`;
  }
  return '';
}

/** Retry-After: seconds or an HTTP date, as ms from now; null when absent or unreadable. */
export function retryAfterMs(v: string | null): number | null {
  if (v === null || v.trim() === '') return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
