/**
 * The authorise step of the Xero-compatible server (login.xero.com's
 * /identity/connect/authorize): checks the request as Xero does, then
 * approves or refuses at once (`autoConsent`) or shows a consent page (plain
 * HTML, a form that works without JavaScript) whose decision is POSTed back.
 * Approval redirects to redirect_uri with a single-use code bound to the
 * client, the redirect URI, the PKCE challenge, the granted scopes and the
 * chosen tenants; refusal redirects with error=access_denied.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OFFLINE_ACCESS, XERO_READ_SCOPES, XERO_WRITE_SCOPES } from '../ledger/xero/scopes.js';
import { readBody } from './http.js';
import type { PendingConsent, XeroState } from './state.js';

const CODE_TTL_MS = 5 * 60_000;
const CONSENT_TTL_MS = 15 * 60_000;

/** Every scope the server knows: Accounting read and write scopes, offline_access, and OpenID Connect's. */
export const KNOWN_SCOPES = new Set([...Object.keys(XERO_READ_SCOPES), ...Object.keys(XERO_WRITE_SCOPES), OFFLINE_ACCESS, 'openid', 'profile', 'email']);

/** Loopback redirects (any port, as RFC 8252 allows native apps) and the configured ones. */
function redirectAllowed(state: XeroState, uri: string): boolean {
  if (state.policy.redirectUris.includes(uri)) return true;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return false;
  }
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) && u.hash === '';
}

/** 302 to the client's redirect URI with the given parameters (state echoed when the request had one). */
function redirectTo(res: ServerResponse, uri: string, params: Record<string, string>, state: string | null): void {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  if (state !== null) u.searchParams.set('state', state);
  res.writeHead(302, { location: u.toString(), 'content-length': 0, 'cache-control': 'no-store' }).end();
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, title: string, body: string): void {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>${escape(title)}</h1>
${body}
</main></body></html>
`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    // The consent page must not be framed by another site (clickjacking).
    'x-frame-options': 'DENY',
  });
  res.end(html);
}

/** An error the user sees (never a redirect: the client or its redirect URI is not trusted). */
const errorPage = (res: ServerResponse, message: string) => page(res, 400, 'Authorisation error', `<p>${escape(message)}</p>`);

export function handleAuthorize(state: XeroState, res: ServerResponse, url: URL): void {
  const q = url.searchParams;
  const clientId = q.get('client_id') ?? '';
  const redirectUri = q.get('redirect_uri') ?? '';
  if (clientId !== state.clientId) return errorPage(res, `Unknown client_id: ${clientId || '(none)'}`);
  if (!redirectAllowed(state, redirectUri)) return errorPage(res, `redirect_uri is not registered for this app: ${redirectUri || '(none)'}`);
  // From here on, errors go back to the (verified) redirect URI.
  const st = q.get('state');
  if (q.get('response_type') !== 'code') return redirectTo(res, redirectUri, { error: 'unsupported_response_type' }, st);
  const challenge = q.get('code_challenge') ?? '';
  if (!challenge) return redirectTo(res, redirectUri, { error: 'invalid_request', error_description: 'code_challenge is required' }, st);
  if (q.get('code_challenge_method') !== 'S256') return errorPage(res, 'code_challenge_method must be S256');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return redirectTo(res, redirectUri, { error: 'invalid_request', error_description: 'code_challenge is not an S256 challenge' }, st);
  const requested = (q.get('scope') ?? '').split(' ').filter(Boolean);
  const unknown = requested.filter((s) => !KNOWN_SCOPES.has(s));
  if (requested.length === 0 || unknown.length) {
    return redirectTo(res, redirectUri, { error: 'invalid_scope', error_description: unknown.length ? `unknown scope: ${unknown.join(' ')}` : 'scope is required' }, st);
  }
  const scopes = state.policy.grantScopes(requested).filter((s) => requested.includes(s));
  const consent: PendingConsent = { clientId, redirectUri, state: st, challenge, scopes, expiresAt: Date.now() + CONSENT_TTL_MS };
  if (state.policy.autoConsent === 'deny') return redirectTo(res, redirectUri, { error: 'access_denied' }, st);
  if (state.policy.autoConsent === true) return approve(state, res, consent, [...state.tenants.keys()]);
  const id = randomBytes(16).toString('base64url');
  state.pending.set(id, consent);
  return consentPage(state, res, id, consent, 200, '');
}

/** The consent page: the organisations (each checked), what the app may do, Allow access / Cancel. */
function consentPage(state: XeroState, res: ServerResponse, id: string, consent: PendingConsent, status: number, notice: string): void {
  const tenants = [...state.tenants.values()]
    .map((d, i) => {
      const name = escape(String(d.organisation.Name ?? d.tenantId));
      return `<li><label><input type="checkbox" name="tenant" value="${escape(d.tenantId)}" id="tenant-${i}" checked> ${name}</label></li>`;
    })
    .join('\n');
  const scopes = consent.scopes.map((s) => `<li><code>${escape(s)}</code></li>`).join('\n');
  page(
    res,
    status,
    'Connect to Xero',
    `${notice ? `<p role="alert">${escape(notice)}</p>\n` : ''}<p>The app <strong>${escape(consent.clientId)}</strong> wants access to your organisations.</p>
<form method="post" action="/identity/connect/authorize/decision">
<input type="hidden" name="request" value="${escape(id)}">
<fieldset><legend>Organisations</legend><ul>
${tenants}
</ul></fieldset>
<p>It will be allowed:</p><ul>
${scopes}
</ul>
<button type="submit" name="decision" value="allow">Allow access</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form>`,
  );
}

/** The consent form's POST: Allow access issues a code for the checked organisations; Cancel refuses. */
export async function handleDecision(state: XeroState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = new URLSearchParams(await readBody(req));
  const id = form.get('request') ?? '';
  const consent = state.pending.get(id);
  if (!consent || consent.expiresAt <= Date.now()) {
    state.pending.delete(id);
    return errorPage(res, 'This authorisation request is unknown or out of date: start again from the app.');
  }
  if (form.get('decision') !== 'allow') {
    state.pending.delete(id);
    return redirectTo(res, consent.redirectUri, { error: 'access_denied' }, consent.state);
  }
  const tenantIds = form.getAll('tenant').filter((t) => state.tenants.has(t));
  if (tenantIds.length === 0) return consentPage(state, res, id, consent, 400, 'Choose at least one organisation.');
  state.pending.delete(id);
  return approve(state, res, consent, tenantIds);
}

/**
 * Forgets codes and consent requests out of date (a long-running server would otherwise keep them all). A used code
 * is kept until then, so a replay within its life still revokes what it gave.
 */
function prune(state: XeroState): void {
  const now = Date.now();
  for (const [k, c] of state.codes) if (c.expiresAt <= now) state.codes.delete(k);
  for (const [k, p] of state.pending) if (p.expiresAt <= now) state.pending.delete(k);
}

/** Issues the code and redirects back to the app with it. */
function approve(state: XeroState, res: ServerResponse, consent: PendingConsent, tenantIds: string[]): void {
  prune(state);
  const code = randomBytes(32).toString('base64url');
  state.codes.set(code, {
    clientId: consent.clientId,
    redirectUri: consent.redirectUri,
    challenge: consent.challenge,
    scopes: consent.scopes,
    tenantIds,
    expiresAt: Date.now() + CODE_TTL_MS,
    used: false,
    grantId: null,
  });
  return redirectTo(res, consent.redirectUri, { code, scope: consent.scopes.join(' ') }, consent.state);
}
