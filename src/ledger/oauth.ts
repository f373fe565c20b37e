/**
 * Xero's OAuth 2.0 authorisation-code flow with PKCE (RFC 7636), the calls a
 * consent makes and a disconnect undoes (docs/sync.md "Connect your Xero"):
 * the authorise address, the code exchange, the tenant connections
 * (`GET /connections`), revocation of a refresh token and removal of a
 * connection. No storage here: src/ledger/consent.ts stores what a consent
 * yields. Nothing here logs or echoes a token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { BROAD_READ_SCOPES, GRANULAR_READ_SCOPES } from './xero/scopes.js';

/** Where Xero's identity service and API are, and the app's credentials. */
export interface OAuthEndpoint {
  /** https://login.xero.com: the authorise page is /identity/connect/authorize under it. */
  loginUrl: string;
  /** https://identity.xero.com: /connect/token and /connect/revocation under it. */
  identityUrl: string;
  /** https://api.xero.com/connections. */
  connectionsUrl: string;
  clientId: string;
  /** A confidential ("web") app's secret; absent for a PKCE-only app. */
  clientSecret?: string | undefined;
  /** The scopes to ask for (read only; offline_access for a refresh token). */
  scopes: readonly string[];
}

/** A consent that failed: what happened and what to do, for a person (never a token). */
export class ConsentError extends Error {
  constructor(
    message: string,
    /** access_denied | state_mismatch | timeout | invalid_grant | no_tenant | tenant_choice | http | … */
    readonly kind: string,
  ) {
    super(message);
    this.name = 'ConsentError';
  }
}

export interface ConsentRequest {
  url: string;
  state: string;
  verifier: string;
}

const b64url = (b: Buffer) => b.toString('base64url');

/** A fresh PKCE verifier (43 characters of base64url: 256 bits) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) };
}

/** The authorise address for a new consent; `state` may be given (the web flow puts the organisation in it). */
export function consentRequest(ep: OAuthEndpoint, redirectUri: string, state = b64url(randomBytes(24))): ConsentRequest {
  const { verifier, challenge } = pkcePair();
  const url = new URL(`${ep.loginUrl.replace(/\/+$/, '')}/identity/connect/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: ep.clientId,
    redirect_uri: redirectUri,
    scope: ep.scopes.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.toString(), state, verifier };
}

export interface Grant {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms. */
  expiresAt: number;
  /** What the consent granted. */
  scopes: string[];
}

/** Client authentication as Xero wants it: Basic with the secret when there is one, else client_id in the form. */
function clientAuth(ep: OAuthEndpoint, form: URLSearchParams): Record<string, string> {
  if (ep.clientSecret) return { authorization: `Basic ${Buffer.from(`${ep.clientId}:${ep.clientSecret}`).toString('base64')}` };
  form.set('client_id', ep.clientId);
  return {};
}

async function post(url: string, headers: Record<string, string>, form: URLSearchParams, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body: form.toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new ConsentError(`could not reach Xero's identity service at ${new URL(url).origin}: ${(err as Error).message}`, 'network');
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: res.status, body };
}

/** What Xero's token endpoint answers (fields unchecked). */
interface TokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  scope?: unknown;
  error?: unknown;
}

/** One call of the token endpoint with the client's authentication. */
async function tokenRequest(ep: OAuthEndpoint, fields: Record<string, string>, timeoutMs = 30_000): Promise<{ status: number; body: TokenAnswer }> {
  const form = new URLSearchParams(fields);
  const r = await post(`${ep.identityUrl.replace(/\/+$/, '')}/connect/token`, clientAuth(ep, form), form, timeoutMs);
  return { status: r.status, body: (r.body ?? {}) as TokenAnswer };
}

/** The scopes a token answer says were granted; null when it does not say. */
const grantedScopes = (b: TokenAnswer) => (typeof b.scope === 'string' ? b.scope.split(/\s+/).filter(Boolean) : null);

/** Exchanges an authorisation code for tokens, with the PKCE verifier (and the secret when configured). */
export async function exchangeCode(ep: OAuthEndpoint, input: { code: string; verifier: string; redirectUri: string; now?: number; timeoutMs?: number }): Promise<Grant> {
  const r = await tokenRequest(ep, { grant_type: 'authorization_code', code: input.code, redirect_uri: input.redirectUri, code_verifier: input.verifier }, input.timeoutMs);
  const b = r.body;
  if (r.status !== 200) {
    const error = typeof b.error === 'string' ? b.error : `HTTP ${r.status}`;
    const hint =
      error === 'invalid_grant'
        ? 'the code was already used, has expired, or does not match this request: start the connection again'
        : error === 'invalid_client'
          ? 'check XERO_CLIENT_ID and XERO_CLIENT_SECRET against the app at developer.xero.com'
          : 'start the connection again';
    throw new ConsentError(`Xero refused the authorisation code (${error}): ${hint}`, error === 'invalid_grant' ? 'invalid_grant' : 'http');
  }
  if (typeof b.access_token !== 'string' || typeof b.expires_in !== 'number') throw new ConsentError("Xero's token answer had no access_token/expires_in", 'http');
  if (typeof b.refresh_token !== 'string') {
    throw new ConsentError('Xero issued no refresh token: the scopes must include offline_access (XERO_SCOPES)', 'no_refresh_token');
  }
  return {
    accessToken: b.access_token,
    refreshToken: b.refresh_token,
    expiresAt: (input.now ?? Date.now()) + b.expires_in * 1000,
    scopes: grantedScopes(b) ?? [...ep.scopes],
  };
}

/** A new access token from a refresh token (the disconnect needs one to remove the connection). */
export async function refreshGrant(ep: OAuthEndpoint, refreshToken: string, timeoutMs = 30_000): Promise<Grant> {
  const r = await tokenRequest(ep, { grant_type: 'refresh_token', refresh_token: refreshToken }, timeoutMs);
  const b = r.body;
  if (r.status !== 200 || typeof b.access_token !== 'string') {
    throw new ConsentError(`Xero refused the refresh token (${typeof b.error === 'string' ? b.error : `HTTP ${r.status}`})`, 'invalid_grant');
  }
  return {
    accessToken: b.access_token,
    refreshToken: typeof b.refresh_token === 'string' ? b.refresh_token : refreshToken,
    expiresAt: Date.now() + Number(b.expires_in ?? 1800) * 1000,
    scopes: grantedScopes(b) ?? [],
  };
}

/** One organisation the consent authorised (Xero's tenant connection). */
export interface TenantConnection {
  /** The connection's id (DELETE /connections/{id}). */
  id: string;
  tenantId: string;
  tenantName: string;
  tenantType: string;
}

/** The tenants the access token may read: organisations only (practice tenants are not books). */
export async function listConnections(ep: OAuthEndpoint, accessToken: string, timeoutMs = 30_000): Promise<TenantConnection[]> {
  let res: Response;
  try {
    res = await fetch(ep.connectionsUrl, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new ConsentError(`could not reach Xero's connections at ${new URL(ep.connectionsUrl).origin}: ${(err as Error).message}`, 'network');
  }
  if (res.status !== 200) throw new ConsentError(`Xero's connections answered HTTP ${res.status}`, 'http');
  const body = (await res.json().catch(() => null)) as unknown;
  if (!Array.isArray(body)) throw new ConsentError("Xero's connections answer was not a list", 'http');
  return body
    .map((c) => c as Record<string, unknown>)
    .filter((c) => typeof c.tenantId === 'string' && typeof c.id === 'string' && (c.tenantType ?? 'ORGANISATION') === 'ORGANISATION')
    .map((c) => ({ id: String(c.id), tenantId: String(c.tenantId), tenantName: String(c.tenantName ?? ''), tenantType: String(c.tenantType ?? 'ORGANISATION') }));
}

/**
 * The tenant to connect: the one named by `wanted` (its id, or its name
 * without regard to case), or the only one; null when there are several and
 * none was named (the caller asks). A name or id that matches none is an error
 * listing what there is.
 */
export function pickTenant(list: TenantConnection[], wanted?: string): TenantConnection | null {
  const names = () => list.map((t) => `${t.tenantName} (${t.tenantId})`).join(', ');
  if (list.length === 0) throw new ConsentError('the consent authorised no Xero organisation: run it again and tick an organisation', 'no_tenant');
  if (wanted) {
    const w = wanted.trim().toLowerCase();
    const hit = list.find((t) => t.tenantId.toLowerCase() === w) ?? list.find((t) => t.tenantName.toLowerCase() === w);
    if (!hit) throw new ConsentError(`no authorised Xero organisation is named or has the id "${wanted}"; authorised: ${names()}`, 'tenant_choice');
    return hit;
  }
  return list.length === 1 ? list[0]! : null;
}

/** Revokes a refresh token at Xero (and with it the access tokens of its grant). True when Xero said so. */
export async function revokeToken(ep: OAuthEndpoint, refreshToken: string, timeoutMs = 30_000): Promise<boolean> {
  const form = new URLSearchParams({ token: refreshToken });
  const r = await post(`${ep.identityUrl.replace(/\/+$/, '')}/connect/revocation`, clientAuth(ep, form), form, timeoutMs);
  return r.status === 200;
}

/** Removes a tenant connection at Xero (DELETE /connections/{id}). True when it is gone (204, or 404: already gone). */
export async function deleteConnection(ep: OAuthEndpoint, accessToken: string, connectionId: string, timeoutMs = 30_000): Promise<boolean> {
  try {
    const res = await fetch(`${ep.connectionsUrl.replace(/\/+$/, '')}/${encodeURIComponent(connectionId)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    return res.status === 204 || res.status === 200 || res.status === 404;
  } catch {
    return false;
  }
}

/** The scopes XERO_SCOPES names: the granular read set, the broad one, or a list (offline_access always added). */
export function scopesOf(setting: string): string[] {
  const s = setting.trim();
  const list = s === 'granular' ? [...GRANULAR_READ_SCOPES] : s === 'broad' ? [...BROAD_READ_SCOPES] : s.split(/[\s,]+/).filter(Boolean);
  const writes = list.filter((x) => x !== 'offline_access' && x !== 'openid' && x !== 'profile' && x !== 'email' && !x.endsWith('.read'));
  if (writes.length) throw new ConsentError(`XERO_SCOPES asks for ${writes.join(', ')}: Cashline only reads, so only read scopes (ending .read) are allowed`, 'config');
  return list.includes('offline_access') ? list : ['offline_access', ...list];
}

/** The consent's endpoint from the configuration (XERO_*), or an error naming what is missing. */
export function oauthEndpoint(config: {
  XERO_LOGIN_URL: string;
  XERO_IDENTITY_URL: string;
  XERO_API_URL: string;
  XERO_CLIENT_ID?: string | undefined;
  XERO_CLIENT_SECRET?: string | undefined;
  XERO_SCOPES: string;
}): OAuthEndpoint {
  if (!config.XERO_CLIENT_ID) throw new ConsentError('XERO_CLIENT_ID must be set to connect a Xero organisation (the app registered at developer.xero.com)', 'config');
  return {
    loginUrl: config.XERO_LOGIN_URL.replace(/\/+$/, ''),
    identityUrl: config.XERO_IDENTITY_URL.replace(/\/+$/, ''),
    // Xero serves the connections at the API's origin (https://api.xero.com/connections).
    connectionsUrl: new URL('/connections', config.XERO_API_URL).toString(),
    clientId: config.XERO_CLIENT_ID,
    clientSecret: config.XERO_CLIENT_SECRET,
    scopes: scopesOf(config.XERO_SCOPES),
  };
}
