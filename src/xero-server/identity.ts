/**
 * The identity endpoints of the Xero-compatible server, as Xero's identity
 * service answers them (xero-identity.yaml, RFC 6749/7009/7636):
 *   GET  /identity/connect/authorize (and its consent decision, ./authorize.ts)
 *   POST /connect/token        authorization_code (PKCE S256) and refresh_token grants
 *   POST /connect/revocation   revokes a refresh token's grant
 *   GET  /connections          the tenants the token's grant authorised
 *   DELETE /connections/{id}   disconnects one tenant
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleAuthorize, handleDecision } from './authorize.js';
import { bearer, json, problem, readBody } from './http.js';
import type { XeroState } from './state.js';
import type { Grant, GrantRecord } from './tokens.js';

export const AUTHORIZE_PATH = '/identity/connect/authorize';

export async function handleIdentity(state: XeroState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const path = url.pathname;
  if (req.method === 'GET' && path === AUTHORIZE_PATH) return handleAuthorize(state, res, url);
  if (req.method === 'POST' && path === `${AUTHORIZE_PATH}/decision`) return handleDecision(state, req, res);
  if (req.method === 'POST' && path === '/connect/token') return token(state, req, res);
  if (req.method === 'POST' && path === '/connect/revocation') return revocation(state, req, res);
  if (req.method === 'GET' && path === '/connections') return listConnections(state, req, res, url);
  const del = /^\/connections\/([^/]+)$/.exec(path);
  if (req.method === 'DELETE' && del) return deleteConnection(state, req, res, decodeURIComponent(del[1]!));
  return problem(res, 404, 'Not Found', 'No such identity endpoint');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The client of a token or revocation request (HTTP Basic or client_id/client_secret in the form); null when it
 * does not authenticate. A confidential client needs its secret; a public (PKCE) one sends client_id alone.
 */
function clientOf(state: XeroState, req: IncomingMessage, form: URLSearchParams): string | null {
  let id = form.get('client_id');
  let secret = form.get('client_secret');
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const text = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    id = colon < 0 ? text : text.slice(0, colon);
    secret = colon < 0 ? null : text.slice(colon + 1);
  }
  if (id === null || !same(id, state.clientId)) return null;
  if (state.policy.requireClientSecret || secret) return secret !== null && same(secret, state.clientSecret) ? id : null;
  return id;
}

/** The token endpoint's answer (no refresh_token without offline_access). */
function tokenAnswer(res: ServerResponse, g: Grant): void {
  return json(res, 200, {
    access_token: g.accessToken,
    expires_in: g.expiresIn,
    token_type: 'Bearer',
    ...(g.refreshToken ? { refresh_token: g.refreshToken } : {}),
    scope: g.scopes.join(' '),
  });
}

const oauthError = (res: ServerResponse, error: string, description?: string) =>
  json(res, 400, { error, ...(description ? { error_description: description } : {}) });

async function token(state: XeroState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = new URLSearchParams(await readBody(req));
  const clientId = clientOf(state, req, form);
  if (!clientId) return oauthError(res, 'invalid_client');
  const type = form.get('grant_type');
  if (type === 'authorization_code') return codeGrant(state, res, form, clientId);
  if (type === 'refresh_token') return refreshGrant(state, res, form, clientId);
  return oauthError(res, 'unsupported_grant_type');
}

/** S256: base64url(SHA-256(verifier)). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * The code exchange: the code must be unexpired, unused, this client's, for this redirect_uri, and the verifier must
 * hash to its challenge. A replayed code revokes the grant it was exchanged for (OAuth 2.0 security BCP: whoever
 * replays it may have stolen it). A wrong verifier does not use the code up (the right client may still redeem it).
 */
function codeGrant(state: XeroState, res: ServerResponse, form: URLSearchParams, clientId: string): void {
  const code = state.codes.get(form.get('code') ?? '');
  if (!code) return oauthError(res, 'invalid_grant', 'unknown authorisation code');
  if (code.used) {
    const grant = state.tokens.grants.find((g) => g.id === code.grantId);
    if (grant) state.tokens.revokeGrant(grant);
    return oauthError(res, 'invalid_grant', 'the authorisation code was already used; the tokens issued from it are revoked');
  }
  if (code.expiresAt <= Date.now()) return oauthError(res, 'invalid_grant', 'the authorisation code is out of date');
  if (code.clientId !== clientId) return oauthError(res, 'invalid_grant', 'the code was issued to another client');
  if (form.get('redirect_uri') !== code.redirectUri) return oauthError(res, 'invalid_grant', 'redirect_uri differs from the authorise request');
  const verifier = form.get('code_verifier') ?? '';
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !same(s256(verifier), code.challenge)) {
    return oauthError(res, 'invalid_grant', 'code_verifier does not match the code_challenge');
  }
  code.used = true;
  const { grant, tokens } = state.tokens.createGrant({ clientId, scopes: code.scopes, tenantIds: code.tenantIds });
  code.grantId = grant.id;
  return tokenAnswer(res, tokens);
}

/** Refresh: new tokens under the same grant (same scopes and tenants). */
function refreshGrant(state: XeroState, res: ServerResponse, form: URLSearchParams, clientId: string): void {
  const old = state.tokens.refreshInfo(form.get('refresh_token') ?? '');
  if (!old || old.revoked || old.grant.clientId !== clientId) return oauthError(res, 'invalid_grant');
  if (old.expiresAt <= Date.now()) return oauthError(res, 'invalid_grant', 'refresh token expired');
  // Rotation: as Xero does, the previous refresh token stays usable for a 30-minute grace period
  // (a client that died before storing the new one can still refresh).
  old.expiresAt = Math.min(old.expiresAt, Date.now() + 30 * 60_000);
  return tokenAnswer(res, state.tokens.issueTokens(old.grant));
}

/** RFC 7009: 200 whatever the token (an unknown one reveals nothing); a token of this client revokes its grant. */
async function revocation(state: XeroState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = new URLSearchParams(await readBody(req));
  const clientId = clientOf(state, req, form);
  if (!clientId) return oauthError(res, 'invalid_client');
  const t = form.get('token') ?? '';
  const info = state.tokens.refreshInfo(t) ?? state.tokens.accessInfo(t);
  if (info && info.grant.clientId === clientId) state.tokens.revokeGrant(info.grant);
  res.writeHead(200, { 'content-length': 0 }).end();
}

/** The grant of a live bearer token; answers 401 (AuthenticationUnsuccessful, or TokenExpired) and returns null otherwise. */
export function bearerGrant(state: XeroState, req: IncomingMessage, res: ServerResponse): GrantRecord | null {
  const info = state.tokens.accessInfo(bearer(req));
  if (!info || info.revoked) {
    problem(res, 401, 'Unauthorized', 'AuthenticationUnsuccessful');
    return null;
  }
  if (info.expiresAt <= Date.now()) {
    problem(res, 401, 'Unauthorized', `TokenExpired: token expired at ${new Date(info.expiresAt).toUTCString()}`);
    return null;
  }
  return info.grant;
}

function listConnections(state: XeroState, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const grant = bearerGrant(state, req, res);
  if (!grant) return;
  const authEventId = url.searchParams.get('authEventId');
  const out = grant.connections
    .filter((c) => state.tenants.has(c.tenantId) && (authEventId === null || authEventId === grant.authEventId))
    .map((c) => ({
      id: c.id,
      authEventId: grant.authEventId,
      tenantId: c.tenantId,
      tenantType: 'ORGANISATION',
      tenantName: String(state.tenants.get(c.tenantId)!.organisation.Name ?? ''),
      createdDateUtc: c.createdAt.toISOString(),
      updatedDateUtc: c.createdAt.toISOString(),
    }));
  return json(res, 200, out);
}

/** Disconnects one tenant of the token's grant: calls naming it are refused from now on. */
function deleteConnection(state: XeroState, req: IncomingMessage, res: ServerResponse, id: string): void {
  const grant = bearerGrant(state, req, res);
  if (!grant) return;
  const i = grant.connections.findIndex((c) => c.id === id);
  if (i < 0) return problem(res, 404, 'Not Found', `No connection ${id}`);
  grant.connections.splice(i, 1);
  res.writeHead(204).end();
}
