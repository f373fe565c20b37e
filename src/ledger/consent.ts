/**
 * Connecting an organisation's Xero, and disconnecting it (docs/sync.md
 * "Connect your Xero"):
 * - on the command line (`cashline-server ledger connect`): the consent page
 *   in the browser, the answer on a loopback address (RFC 8252), the code
 *   exchanged with the PKCE verifier, the tenant picked, the tokens sealed;
 * - on the web (`GET /connect/xero` and its callback, src/api/routes/connect.ts):
 *   the same steps from a short-lived signed link, the verifier kept sealed
 *   in `ledger_consents` between the two requests (any instance may answer
 *   the callback), one use per consent;
 * - `ledger disconnect`: the connection removed at Xero, the refresh token
 *   revoked, the stored tokens deleted; the books stay, marked no longer
 *   updating.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';
import { holdConsentTokens, insertConsent, liveConsent, pruneConsents, takeConsent } from '../store/queries/consents.js';
import { clearWatermarks, ledgerConnection, orgLedgerInfo, updateConnection } from '../store/queries/connections.js';
import { startLoopback } from './loopback.js';
import {
  ConsentError,
  consentRequest,
  deleteConnection,
  exchangeCode,
  type Grant,
  listConnections,
  type OAuthEndpoint,
  pickTenant,
  refreshGrant,
  revokeToken,
  type TenantConnection,
} from './oauth.js';
import type { Keyring } from './seal.js';
import { connectLedger } from './sync/sync.js';
import { loadTokens } from './tokens.js';

/** What a finished consent connected (the command's JSON). */
export interface ConnectedLedger {
  orgId: string;
  tenantId: string;
  tenantName: string;
  connectionId: string;
  scopes: string[];
}

/** How long a web consent may take, and a signed link stays valid by default. */
export const CONSENT_TTL_MS = 10 * 60_000;
export const LINK_TTL_MS = 60 * 60_000;

/**
 * Stores the connection a consent made: tokens sealed, the tenant, its
 * connection id and the granted scopes; healthy and never synced. A tenant
 * other than the one whose books the organisation holds is refused (two
 * ledgers' books must not mix); the same tenant keeps the sync's watermarks.
 */
async function storeConnection(db: Db, keyring: Keyring, orgId: string, grant: Grant, tenant: TenantConnection, now: Date): Promise<ConnectedLedger> {
  const org = await orgLedgerInfo(db, orgId);
  if (!org) throw new ConsentError(`organisation ${orgId} not found`, 'not_found');
  if (org.ledgerTenantId && org.ledgerTenantId !== tenant.tenantId) {
    throw new ConsentError(
      `organisation ${orgId} holds the books of Xero organisation ${org.ledgerTenantId}, not of ${tenant.tenantName} (${tenant.tenantId}): connect that one, or create a new Cashline organisation for this one`,
      'tenant_mismatch',
    );
  }
  const before = await ledgerConnection(db, orgId);
  await connectLedger(db, keyring, {
    orgId,
    tenantId: tenant.tenantId,
    refreshToken: grant.refreshToken,
    accessToken: grant.accessToken,
    accessTokenExpiresAt: new Date(grant.expiresAt),
    now,
    consent: { connectionId: tenant.id, tenantName: tenant.tenantName, scopes: grant.scopes },
  });
  // A connection to another tenant than the last one (the organisation held no books of it): read it from the start.
  if (before && before.tenantId !== tenant.tenantId) await clearWatermarks(db, orgId);
  return { orgId, tenantId: tenant.tenantId, tenantName: tenant.tenantName, connectionId: tenant.id, scopes: grant.scopes };
}

export interface CliConsentOptions {
  orgId: string;
  /** --tenant: a tenant's name or id, chosen without asking. */
  tenant?: string | undefined;
  /** The loopback port (0: any free one; Xero needs the registered one). */
  port: number;
  timeoutMs: number;
  /** Shows the consent address (opens the browser, or prints it). */
  announce: (url: string) => void | Promise<void>;
  /** Asks the user to pick among several tenants; absent when nobody can be asked. */
  ask?: (tenants: TenantConnection[]) => Promise<TenantConnection>;
  now: () => Date;
}

/** The command-line consent: browser, loopback answer, code exchange, tenant choice, stored connection. */
export async function connectByConsent(db: Db, ep: OAuthEndpoint, keyring: Keyring, o: CliConsentOptions): Promise<ConnectedLedger> {
  if (!(await orgLedgerInfo(db, o.orgId))) throw new ConsentError(`organisation ${o.orgId} not found`, 'not_found');
  const loopback = await startLoopback(o.port);
  try {
    const req = consentRequest(ep, loopback.redirectUri);
    const waiting = loopback.code(req.state, o.timeoutMs);
    waiting.catch(() => {}); // observed below; the announce may throw first
    await o.announce(req.url);
    const code = await waiting;
    const grant = await exchangeCode(ep, { code, verifier: req.verifier, redirectUri: loopback.redirectUri });
    const tenants = await listConnections(ep, grant.accessToken);
    let tenant = pickTenant(tenants, o.tenant);
    if (!tenant) {
      if (!o.ask) {
        throw new ConsentError(
          `the consent authorised several Xero organisations: ${tenants.map((t) => `${t.tenantName} (${t.tenantId})`).join(', ')}; run the command again with --tenant NAME_OR_ID`,
          'tenant_choice',
        );
      }
      tenant = await o.ask(tenants);
    }
    return await storeConnection(db, keyring, o.orgId, grant, tenant, o.now());
  } finally {
    await loopback.close();
  }
}

// ---------------------------------------------------------------------------
// The web flow
// ---------------------------------------------------------------------------

export interface WebConsentContext {
  db: Db;
  ep: OAuthEndpoint;
  keyring: Keyring;
  now: () => Date;
}

const LINK_PURPOSE = 'ledger-connect-link';
const linkData = (orgId: string, expires: number, tenant: string | undefined) => `${orgId}\n${expires}\n${tenant ?? ''}`;

/** A signed link to start the web consent for the organisation, valid `ttlMs` (`ledger link`). */
export function connectLink(keyring: Keyring, publicUrl: string, orgId: string, now: Date, ttlMs = LINK_TTL_MS, tenant?: string): { url: string; expiresAt: string } {
  const expires = Math.floor((now.getTime() + ttlMs) / 1000);
  const url = new URL(`${publicUrl.replace(/\/+$/, '')}/connect/xero`);
  url.searchParams.set('org', orgId);
  if (tenant) url.searchParams.set('tenant', tenant);
  url.searchParams.set('expires', String(expires));
  url.searchParams.set('sig', keyring.mac(LINK_PURPOSE, linkData(orgId, expires, tenant)));
  return { url: url.toString(), expiresAt: new Date(expires * 1000).toISOString() };
}

/** The state of a web consent: the organisation, then 192 random bits (the callback finds the consent by both). */
const newState = (orgId: string) => `${orgId}~${randomBytes(24).toString('base64url')}`;
function orgOfState(state: string): string {
  const i = state.lastIndexOf('~');
  if (i <= 0) throw new ConsentError('this answer does not belong to a connection started here: start again from the link', 'state_mismatch');
  return state.slice(0, i);
}

const callbackUri = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/connect/xero/callback`;

/** GET /connect/xero: checks the signed link and sends the browser to Xero; returns where to and the state (the route sets it in a cookie). */
export async function beginWebConsent(
  c: WebConsentContext,
  q: { org?: string | undefined; expires?: string | undefined; sig?: string | undefined; tenant?: string | undefined },
  /** Where the service is reached: the callback is /connect/xero/callback under it. */
  publicUrl: string,
): Promise<{ redirect: string; state: string; orgId: string }> {
  const now = c.now();
  if (!q.org) throw new ConsentError('the link names no organisation (org)', 'bad_link');
  if (!q.sig || !q.expires || !/^\d+$/.test(q.expires)) {
    throw new ConsentError(`this address needs a signed link: the organisation's owner prints one with \`cashline-server ledger link --org ${q.org}\``, 'bad_link');
  }
  if (!c.keyring.verifyMac(LINK_PURPOSE, linkData(q.org, Number(q.expires), q.tenant), q.sig)) {
    throw new ConsentError('this link is not valid (altered, or signed with another key): print a new one with `cashline-server ledger link`', 'bad_link');
  }
  if (Number(q.expires) * 1000 <= now.getTime()) throw new ConsentError('this link has expired: print a new one with `cashline-server ledger link`', 'bad_link');
  if (!(await orgLedgerInfo(c.db, q.org))) throw new ConsentError(`organisation ${q.org} not found`, 'not_found');
  await pruneConsents(c.db, q.org, now);
  const redirectUri = callbackUri(publicUrl);
  const req = consentRequest(c.ep, redirectUri, newState(q.org));
  await insertConsent(c.db, {
    orgId: q.org,
    state: req.state,
    verifier: c.keyring.seal(q.org, req.verifier),
    redirectUri,
    tenantHint: q.tenant ?? null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CONSENT_TTL_MS),
  });
  return { redirect: req.url, state: req.state, orgId: q.org };
}

export type WebConsentOutcome =
  | { status: 'connected'; connected: ConnectedLedger }
  | { status: 'choose'; orgId: string; state: string; tenants: { tenantId: string; tenantName: string }[] };

/**
 * GET /connect/xero/callback: the state must be the browser's own (the
 * cookie, checked by the route) and a live consent's; the consent is taken
 * (one use), the code exchanged, and the tenant connected, or the choice
 * offered when several were authorised and the link named none.
 */
export async function finishWebConsent(c: WebConsentContext, q: { state: string; code?: string | undefined; error?: string | undefined }): Promise<WebConsentOutcome> {
  const orgId = orgOfState(q.state);
  const consent = await liveConsent(c.db, orgId, q.state, c.now());
  if (!consent || consent.tokens !== null) throw new ConsentError('this consent is unknown, already used, or expired: start again from the link', 'state_mismatch');
  if (q.error) {
    await takeConsent(c.db, orgId, q.state, false);
    throw new ConsentError(
      q.error === 'access_denied' ? 'access was not granted in Xero: start again from the link and choose "Allow access"' : `Xero answered ${q.error}: start again from the link`,
      q.error === 'access_denied' ? 'access_denied' : q.error,
    );
  }
  if (!q.code) throw new ConsentError('Xero came back without an authorisation code', 'http');
  const verifier = c.keyring.open(orgId, consent.verifier);
  const grant = await exchangeCode(c.ep, { code: q.code, verifier, redirectUri: consent.redirectUri });
  const tenants = await listConnections(c.ep, grant.accessToken);
  const tenant = pickTenant(tenants, consent.tenantHint ?? undefined);
  if (!tenant) {
    await holdConsentTokens(c.db, orgId, q.state, c.keyring.seal(orgId, JSON.stringify(grant)), tenants);
    return { status: 'choose', orgId, state: q.state, tenants: tenants.map((t) => ({ tenantId: t.tenantId, tenantName: t.tenantName })) };
  }
  if (!(await takeConsent(c.db, orgId, q.state, false))) throw new ConsentError('this consent was already used: start again from the link', 'state_mismatch');
  return { status: 'connected', connected: await storeConnection(c.db, c.keyring, orgId, grant, tenant, c.now()) };
}

/** POST /connect/xero/tenant: the tenant the user chose among those the consent authorised. */
export async function chooseWebTenant(c: WebConsentContext, q: { state: string; tenantId: string }): Promise<ConnectedLedger> {
  const orgId = orgOfState(q.state);
  const consent = await liveConsent(c.db, orgId, q.state, c.now());
  if (!consent?.tokens) throw new ConsentError('this choice is unknown, already made, or expired: start again from the link', 'state_mismatch');
  const tenants = (consent.tenants ?? []) as TenantConnection[];
  const tenant = tenants.find((t) => t.tenantId === q.tenantId);
  if (!tenant) throw new ConsentError('that organisation was not among those authorised: choose one of the list', 'tenant_choice');
  const grant = JSON.parse(c.keyring.open(orgId, consent.tokens)) as Grant;
  if (!(await takeConsent(c.db, orgId, q.state, true))) throw new ConsentError('this choice was already made', 'state_mismatch');
  return storeConnection(c.db, c.keyring, orgId, grant, tenant, c.now());
}

// ---------------------------------------------------------------------------
// Disconnect
// ---------------------------------------------------------------------------

export interface Disconnected {
  orgId: string;
  tenantId: string;
  /** DELETE /connections/{id} succeeded (or the connection was already gone). */
  connectionRemoved: boolean;
  /** Xero's revocation endpoint accepted the refresh token. */
  tokenRevoked: boolean;
  tokensDeleted: true;
  /** What Xero could not be told (the stored tokens are deleted all the same). */
  warnings: string[];
}

/**
 * Removes the tenant connection at Xero (with a fresh access token), revokes
 * the refresh token, and deletes the stored tokens whatever Xero answered;
 * the organisation's books stay, marked no longer updating.
 */
export async function disconnectLedger(db: Db, ep: OAuthEndpoint, keyring: Keyring, orgId: string, now: Date): Promise<Disconnected> {
  const conn = await ledgerConnection(db, orgId);
  if (!conn || conn.disconnectedAt) throw new ConsentError(`organisation ${orgId} has no ledger connection to disconnect`, 'not_connected');
  const warnings: string[] = [];
  let connectionRemoved = false;
  let tokenRevoked = false;
  let tokens: Awaited<ReturnType<typeof loadTokens>> | null = null;
  try {
    tokens = await loadTokens(db, keyring, orgId);
  } catch (err) {
    warnings.push(`the stored tokens could not be read (${(err as Error).message}); Xero was not told: remove Cashline under Settings > Connected apps in Xero`);
  }
  let refreshToken = tokens?.refreshToken ?? null;
  if (refreshToken) {
    if (conn.connectionId) {
      try {
        const fresh = tokens?.accessToken && tokens.expiresAt && tokens.expiresAt.getTime() - Date.now() > 60_000 ? { accessToken: tokens.accessToken } : await refreshGrant(ep, refreshToken);
        if ('refreshToken' in fresh) refreshToken = fresh.refreshToken;
        connectionRemoved = await deleteConnection(ep, fresh.accessToken, conn.connectionId);
        if (!connectionRemoved) warnings.push('Xero did not remove the tenant connection');
      } catch (err) {
        warnings.push(`the tenant connection could not be removed at Xero (${(err as Error).message})`);
      }
    } else {
      warnings.push('the connection predates consent (no connection id): only the refresh token is revoked');
    }
    try {
      tokenRevoked = await revokeToken(ep, refreshToken);
      if (!tokenRevoked) warnings.push("Xero's revocation endpoint did not accept the refresh token (it may already be revoked)");
    } catch (err) {
      warnings.push(`the refresh token could not be revoked at Xero (${(err as Error).message})`);
    }
  }
  await updateConnection(db, orgId, {
    accessToken: null,
    accessTokenExpiresAt: null,
    refreshToken: null,
    secretsKeyId: null,
    tokenState: 'disconnected',
    disconnectedAt: now,
    syncRequestedAt: null,
  });
  return { orgId, tenantId: conn.tenantId, connectionRemoved, tokenRevoked, tokensDeleted: true, warnings };
}
