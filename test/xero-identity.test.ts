/**
 * The shipped Xero-compatible server as Xero's identity service, write API
 * and webhooks (src/xero-server/; docs/sync.md), over real HTTP: the
 * authorisation-code flow with PKCE (S256), its refusals (wrong verifier,
 * replayed code, deny, unknown client, bad redirect), scopes granted and
 * enforced (401 AuthorizationUnsuccessful, TokenExpired kept apart), paths the
 * app may never call (403), refresh and revocation, connections listed and
 * deleted, the consent page posted as a browser would, writes that a sync
 * then reads, signed webhook deliveries and the intent-to-receive check, and
 * the `cashline-server xero-server` command (dist/: `npm run build` first).
 */
import { spawn } from 'node:child_process';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { BROAD_READ_SCOPES, GRANULAR_READ_SCOPES, scopesFor } from '../src/ledger/xero/scopes.js';
import { connectLedger, syncOrganisation } from '../src/ledger/sync/sync.js';
import * as s from '../src/store/schema.js';
import { createOrg } from '../src/store/tenancy.js';
import { datasetFromFiles, startXeroServer, type WebhookEvent, type XeroServer, type XeroServerOptions } from '../src/xero-server/server.js';
import { NOW, syncOpts, testKeyring, xeroServer } from './helpers/ledger.js';
import { SERVER_BIN } from './helpers/net.js';
import { freshStore, type TestStore } from './helpers/store.js';

const REDIRECT = 'http://127.0.0.1:53682/callback';
const EXTRA = { tenantId: '6f3a1c1e-0d2b-4c8e-9f7a-2b5d4e6f7a80', tenantName: 'Second Company Ltd' };

/** A server over an organisation without books (identity tests need none). */
const bare = (opts: Partial<XeroServerOptions> = {}) =>
  startXeroServer({ data: datasetFromFiles({ 'Organisation.json': { Organisations: [{ OrganisationID: 'a1b2c3d4-0000-4000-8000-00000000e001', Name: 'Main Books Ltd', BaseCurrency: 'NZD' }] } }), autoConsent: true, ...opts });

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface AuthParams {
  scope?: string;
  state?: string;
  challenge?: string | null;
  method?: string;
  clientId?: string;
  redirectUri?: string;
}

function authorizeUrl(server: XeroServer, p: AuthParams): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: p.clientId ?? server.clientId,
    redirect_uri: p.redirectUri ?? REDIRECT,
    scope: p.scope ?? GRANULAR_READ_SCOPES.join(' '),
    state: p.state ?? 'st-123',
    code_challenge_method: p.method ?? 'S256',
  });
  if (p.challenge !== null) q.set('code_challenge', p.challenge ?? pkce().challenge);
  return `${server.loginUrl}/identity/connect/authorize?${q}`;
}

/** GET the authorise endpoint (not following the redirect); the Location as a URL, or null. */
async function authorize(server: XeroServer, p: AuthParams): Promise<{ status: number; location: URL | null; text: string }> {
  const res = await fetch(authorizeUrl(server, p), { redirect: 'manual' });
  const loc = res.headers.get('location');
  return { status: res.status, location: loc ? new URL(loc) : null, text: await res.text() };
}

const basic = (server: XeroServer) => `Basic ${Buffer.from(`${server.clientId}:${server.clientSecret}`).toString('base64')}`;

async function tokenCall(server: XeroServer, form: Record<string, string>, auth: string | null = basic(server)) {
  const res = await fetch(`${server.identityUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const exchange = (server: XeroServer, code: string, verifier: string, auth?: string | null) =>
  tokenCall(server, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);

/** The whole flow with autoConsent: tokens for the requested scopes. */
async function connect(server: XeroServer, scope?: string) {
  const { verifier, challenge } = pkce();
  const a = await authorize(server, { challenge, ...(scope ? { scope } : {}) });
  const code = a.location!.searchParams.get('code')!;
  const t = await exchange(server, code, verifier);
  expect(t.status).toBe(200);
  return { code, verifier, access: t.body.access_token as string, refresh: t.body.refresh_token as string, scope: t.body.scope as string };
}

async function api(server: XeroServer, token: string, path: string, init: { tenantId?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${server.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      'xero-tenant-id': init.tenantId ?? server.tenantId,
      accept: 'application/json',
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('the authorisation-code flow with PKCE', () => {
  let server: XeroServer;
  beforeAll(async () => {
    server = await bare({ limits: false });
  });
  afterAll(() => server?.close());

  it('approves with a code and the state, exchanges it for tokens, and the tokens open the API and /connections', async () => {
    const { verifier, challenge } = pkce();
    const a = await authorize(server, { challenge, state: 'xyz-1' });
    expect(a.status).toBe(302);
    expect(a.location!.origin + a.location!.pathname).toBe(REDIRECT);
    expect(a.location!.searchParams.get('state')).toBe('xyz-1');
    const code = a.location!.searchParams.get('code')!;
    expect(code.length).toBeGreaterThan(30);
    const t = await exchange(server, code, verifier);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ expires_in: 1800, token_type: 'Bearer', scope: GRANULAR_READ_SCOPES.join(' ') });
    expect(t.body.access_token).toEqual(expect.any(String));
    expect(t.body.refresh_token).toEqual(expect.any(String));
    expect((await api(server, t.body.access_token as string, '/Organisation')).body.Organisations[0].Name).toBe('Main Books Ltd');
    const conns = await fetch(server.connectionsUrl, { headers: { authorization: `Bearer ${t.body.access_token as string}` } });
    expect(conns.status).toBe(200);
    expect(await conns.json()).toEqual([expect.objectContaining({ tenantId: server.tenantId, tenantType: 'ORGANISATION', tenantName: 'Main Books Ltd' })]);
  });

  it('refuses a wrong code_verifier (invalid_grant) and still redeems the code with the right one', async () => {
    const { verifier, challenge } = pkce();
    const code = (await authorize(server, { challenge })).location!.searchParams.get('code')!;
    const wrong = await exchange(server, code, pkce().verifier);
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await exchange(server, code, verifier)).status).toBe(200);
  });

  it('answers a replayed code invalid_grant and revokes the tokens the code gave', async () => {
    const first = await connect(server);
    expect((await api(server, first.access, '/Invoices')).status).toBe(200);
    const replay = await exchange(server, first.code, first.verifier);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await api(server, first.access, '/Invoices')).toMatchObject({ status: 401, body: { Detail: 'AuthenticationUnsuccessful' } });
    expect(server.isRevoked(first.refresh)).toBe(true);
    expect((await tokenCall(server, { grant_type: 'refresh_token', refresh_token: first.refresh })).body.error).toBe('invalid_grant');
  });

  it('binds the code to its client and redirect_uri, and the token endpoint to the client secret', async () => {
    const { verifier, challenge } = pkce();
    const code = (await authorize(server, { challenge })).location!.searchParams.get('code')!;
    expect((await exchange(server, code, verifier, null)).body.error).toBe('invalid_client');
    const otherRedirect = await tokenCall(server, { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:1/other', code_verifier: verifier });
    expect(otherRedirect.body.error).toBe('invalid_grant');
  });

  it('shows an error page (no redirect) for an unknown client, an unregistered redirect_uri or a method other than S256', async () => {
    for (const p of [{ clientId: 'someone-else' }, { redirectUri: 'https://evil.example/cb' }, { method: 'plain' }]) {
      const a = await authorize(server, p);
      expect(a.status, JSON.stringify(p)).toBe(400);
      expect(a.location).toBeNull();
      expect(a.text).toContain('<h1>Authorisation error</h1>');
    }
  });

  it('redirects with invalid_request without a code_challenge and invalid_scope for an unknown scope', async () => {
    const noChallenge = await authorize(server, { challenge: null });
    expect(noChallenge.location!.searchParams.get('error')).toBe('invalid_request');
    expect(noChallenge.location!.searchParams.get('state')).toBe('st-123');
    const badScope = await authorize(server, { scope: 'offline_access accounting.everything' });
    expect(badScope.location!.searchParams.get('error')).toBe('invalid_scope');
  });

  it('accepts the broad scopes of older apps, and gives no refresh token without offline_access', async () => {
    const broad = await connect(server, BROAD_READ_SCOPES.join(' '));
    expect((await api(server, broad.access, '/Reports/BankSummary')).status).toBe(200);
    const online = await connect(server, 'accounting.invoices.read');
    expect(online.refresh).toBeUndefined();
    expect((await api(server, online.access, '/Invoices')).status).toBe(200);
    expect((await api(server, online.access, '/Contacts')).body.Detail).toBe('AuthorizationUnsuccessful');
  });

  it('revokes a refresh token at /connect/revocation: the grant\'s access tokens 401 and the refresh is invalid_grant', async () => {
    const g = await connect(server);
    const rotated = await tokenCall(server, { grant_type: 'refresh_token', refresh_token: g.refresh });
    expect(rotated.status).toBe(200);
    const res = await fetch(`${server.identityUrl}/connect/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(server) },
      body: new URLSearchParams({ token: rotated.body.refresh_token as string }),
    });
    expect(res.status).toBe(200);
    for (const token of [g.access, rotated.body.access_token as string]) expect((await api(server, token, '/Invoices')).status).toBe(401);
    expect((await tokenCall(server, { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string })).body.error).toBe('invalid_grant');
    expect(server.isRevoked(g.refresh)).toBe(true);
  });
});

describe('consent outcomes, scopes and clients', () => {
  it('refuses at once with access_denied and the state when autoConsent is deny', async () => {
    const server = await bare({ autoConsent: 'deny' });
    try {
      const a = await authorize(server, { state: 'deny-me' });
      expect(a.status).toBe(302);
      expect(Object.fromEntries(a.location!.searchParams)).toEqual({ error: 'access_denied', state: 'deny-me' });
    } finally {
      await server.close();
    }
  });

  it('grants what grantScopes keeps: /Journals 401 AuthorizationUnsuccessful, /Invoices 200, scopes kept on refresh; expiry says TokenExpired', async () => {
    const server = await bare({ grantScopes: (req) => req.filter((x) => x !== 'accounting.journals.read') });
    try {
      const g = await connect(server);
      expect(g.scope.split(' ')).not.toContain('accounting.journals.read');
      const journals = await api(server, g.access, '/Journals');
      expect(journals).toMatchObject({ status: 401, body: { Type: null, Title: 'Unauthorized', Status: 401, Detail: 'AuthorizationUnsuccessful', Extensions: {} } });
      expect((await api(server, g.access, '/Invoices')).status).toBe(200);
      const r = await tokenCall(server, { grant_type: 'refresh_token', refresh_token: g.refresh });
      expect(r.body.scope).toBe(g.scope);
      expect((await api(server, r.body.access_token as string, '/Journals')).status).toBe(401);
      server.expireAccessTokens();
      expect((await api(server, r.body.access_token as string, '/Invoices')).body.Detail).toMatch(/^TokenExpired/);
    } finally {
      await server.close();
    }
  });

  it('answers a forbidden path 403 AuthenticationUnsuccessful whatever the scopes', async () => {
    const server = await bare({ forbidden: ['/Journals'] });
    try {
      const g = await connect(server);
      expect(scopesFor('/Journals').some((x) => g.scope.split(' ').includes(x))).toBe(true);
      expect(await api(server, g.access, '/Journals')).toMatchObject({ status: 403, body: { Title: 'Forbidden', Status: 403, Detail: 'AuthenticationUnsuccessful' } });
      expect((await api(server, g.access, '/Payments')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('lets a public client (requireClientSecret false) exchange with client_id and code_verifier alone', async () => {
    const server = await bare({ requireClientSecret: false });
    try {
      const { verifier, challenge } = pkce();
      const code = (await authorize(server, { challenge })).location!.searchParams.get('code')!;
      const t = await tokenCall(server, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: server.clientId }, null);
      expect(t.status).toBe(200);
      const r = await tokenCall(server, { grant_type: 'refresh_token', refresh_token: t.body.refresh_token as string, client_id: server.clientId }, null);
      expect(r.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('connections over two tenants', () => {
  let server: XeroServer;
  beforeAll(async () => {
    server = await bare({ tenants: [EXTRA] });
  });
  afterAll(() => server?.close());

  it('lists both tenants with stable ids; the extra one has no books; DELETE disconnects it (403 after, 404 again)', async () => {
    const g = await connect(server);
    const list = async (token = g.access) => (await (await fetch(server.connectionsUrl, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, string>[];
    const first = await list();
    expect(first.map((c) => [c.tenantId, c.tenantName]).sort()).toEqual([[server.tenantId, 'Main Books Ltd'], [EXTRA.tenantId, EXTRA.tenantName]].sort());
    expect(new Set(first.map((c) => c.authEventId)).size).toBe(1);
    const refreshed = await tokenCall(server, { grant_type: 'refresh_token', refresh_token: g.refresh });
    expect((await list(refreshed.body.access_token as string)).map((c) => c.id).sort()).toEqual(first.map((c) => c.id).sort());

    const org = await api(server, g.access, '/Organisation', { tenantId: EXTRA.tenantId });
    expect(org.body.Organisations).toEqual([expect.objectContaining({ OrganisationID: EXTRA.tenantId, Name: EXTRA.tenantName })]);
    expect((await api(server, g.access, '/Invoices', { tenantId: EXTRA.tenantId })).body).toMatchObject({ Invoices: [], pagination: { itemCount: 0 } });

    const extra = first.find((c) => c.tenantId === EXTRA.tenantId)!;
    const del = () => fetch(`${server.connectionsUrl}/${extra.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${g.access}` } });
    expect((await del()).status).toBe(204);
    expect((await list()).map((c) => c.tenantId)).toEqual([server.tenantId]);
    // The test view agrees: the grant (named by its latest refresh token) holds the main tenant only.
    const mine = server.connections().filter((c) => c.refreshToken === refreshed.body.refresh_token);
    expect(mine.map((c) => c.tenantId)).toEqual([server.tenantId]);
    expect(await api(server, g.access, '/Invoices', { tenantId: EXTRA.tenantId })).toMatchObject({ status: 403, body: { Detail: 'AuthenticationUnsuccessful' } });
    expect((await api(server, g.access, '/Invoices')).status).toBe(200);
    expect((await del()).status).toBe(404);
  });
});

describe('the consent page (no autoConsent), as a browser without JavaScript uses it', () => {
  let server: XeroServer;
  beforeAll(async () => {
    server = await bare({ autoConsent: false, tenants: [EXTRA] });
  });
  afterAll(() => server?.close());

  /** GET the page; the form's action and fields as a browser would read them. */
  async function consentForm(challenge: string) {
    const res = await fetch(authorizeUrl(server, { challenge, state: 'page-1' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
    const request = /<input type="hidden" name="request" value="([^"]+)"/.exec(html)![1]!;
    return { html, action: new URL(action, server.loginUrl).toString(), request };
  }

  const post = (action: string, form: [string, string][]) =>
    fetch(action, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

  it('lists every organisation checked with Allow access and Cancel; allowing one gives a code for that one only', async () => {
    const { verifier, challenge } = pkce();
    const page = await consentForm(challenge);
    expect(page.html).toContain('Main Books Ltd');
    expect(page.html).toContain(EXTRA.tenantName);
    expect([...page.html.matchAll(/type="checkbox" name="tenant" value="([^"]+)"[^>]* checked/g)].map((m) => m[1]).sort()).toEqual([server.tenantId, EXTRA.tenantId].sort());
    expect(page.html).toMatch(/<button type="submit" name="decision" value="allow">Allow access<\/button>/);
    expect(page.html).toMatch(/<button type="submit" name="decision" value="deny">Cancel<\/button>/);
    // The user unticks the second organisation and presses Allow access.
    const res = await post(page.action, [['request', page.request], ['tenant', EXTRA.tenantId], ['decision', 'allow']]);
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('page-1');
    const t = await exchange(server, back.searchParams.get('code')!, verifier);
    const conns = (await (await fetch(server.connectionsUrl, { headers: { authorization: `Bearer ${t.body.access_token as string}` } })).json()) as { tenantId: string }[];
    expect(conns.map((c) => c.tenantId)).toEqual([EXTRA.tenantId]);
    // The request was used up.
    expect((await post(page.action, [['request', page.request], ['decision', 'allow']])).status).toBe(400);
  });

  it('Cancel redirects with access_denied and the state', async () => {
    const page = await consentForm(pkce().challenge);
    const res = await post(page.action, [['request', page.request], ['tenant', server.tenantId], ['decision', 'deny']]);
    expect(res.status).toBe(302);
    expect(Object.fromEntries(new URL(res.headers.get('location')!).searchParams)).toEqual({ error: 'access_denied', state: 'page-1' });
  });
});

/** A webhook receiver that checks Xero's signature: 200 when it holds, 401 otherwise (or `fail` answers first). */
async function receiver(key: string, fail: number[] = []) {
  const got: { body: string; signature: string; valid: boolean }[] = [];
  const srv: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const signature = String(req.headers['x-xero-signature'] ?? '');
      const expected = createHmac('sha256', key).update(body).digest('base64');
      const valid = signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
      got.push({ body, signature, valid });
      res.writeHead(fail.shift() ?? (valid ? 200 : 401)).end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/xero/webhooks`, got, close: () => new Promise((r) => srv.close(r)) };
}

async function until<T>(what: () => T | undefined, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('writes, a sync that reads them, and signed webhooks', () => {
  const key = randomBytes(32).toString('base64');
  let hook: Awaited<ReturnType<typeof receiver>>;
  let server: XeroServer;
  let store: TestStore;
  beforeAll(async () => {
    hook = await receiver(key);
    server = await xeroServer({ scale: 0.02, autoConsent: true, limits: false, webhook: { url: hook.url, key, delayMs: 50 } });
    store = await freshStore('pglite');
  });
  afterAll(async () => {
    await server?.close();
    await hook?.close();
    await store?.close();
  });

  it('creates an invoice and pays it with the writeToken; If-Modified-Since finds it; a sync stores it PAID; events are signed', async () => {
    // An organisation connected through the code flow, synced once.
    const { orgId } = await createOrg(store.db, { name: 'Writes', now: NOW });
    const g = await connect(server);
    await connectLedger(store.db, testKeyring, { orgId, tenantId: server.tenantId, refreshToken: g.refresh, now: NOW });
    const opts = syncOpts(server, { resources: ['Accounts', 'Contacts', 'Invoices', 'Payments'], client: { perMinute: 10_000 } });
    expect((await syncOrganisation(store.db, orgId, opts)).outcome).toBe('ok');

    // A read-only token may not write; a bad body is Xero's ValidationException and changes nothing.
    const body = { Invoices: [{ Type: 'ACCREC', Contact: { Name: 'Webhook Test Buyer' }, Date: '2026-11-20', DueDate: '2026-12-20', Status: 'AUTHORISED', LineItems: [{ Description: 'Widgets', Quantity: 3, UnitAmount: 12.5, TaxAmount: 3.75, AccountCode: '200' }, { Description: 'Setup', Quantity: 1, UnitAmount: 40, TaxAmount: 4 }] }] };
    expect(await api(server, g.access, '/Invoices', { method: 'PUT', body })).toMatchObject({ status: 401, body: { Detail: 'AuthorizationUnsuccessful' } });
    const count = server.data.records.Invoices.length;
    const bad = await api(server, server.writeToken, '/Invoices', { method: 'PUT', body: { Invoices: [{ ...body.Invoices[0], Type: 'NOPE' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ErrorNumber: 10, Type: 'ValidationException', Elements: [{ ValidationErrors: [{ Message: expect.stringContaining('Type') }] }] });
    expect(server.data.records.Invoices.length).toBe(count);

    const before = new Date(Date.now() - 1000).toISOString().replace(/Z$/, '');
    const put = await api(server, server.writeToken, '/Invoices', { method: 'PUT', body });
    expect(put.status).toBe(200);
    const inv = put.body.Invoices[0];
    expect(inv).toMatchObject({ Type: 'ACCREC', Status: 'AUTHORISED', SubTotal: 77.5, TotalTax: 7.75, Total: 85.25, AmountDue: 85.25, AmountPaid: 0, InvoiceNumber: expect.stringMatching(/^INV-\d{5}$/) });
    const since = await api(server, g.access, '/Invoices', { headers: { 'if-modified-since': before } });
    expect(since.body.Invoices.map((i: { InvoiceID: string }) => i.InvoiceID)).toContain(inv.InvoiceID);

    const paid = await api(server, server.writeToken, '/Payments', { method: 'PUT', body: { Invoice: { InvoiceID: inv.InvoiceID }, Account: { Code: '090' }, Date: '2026-11-22', Amount: 85.25 } });
    expect(paid.status).toBe(200);
    expect(paid.body.Payments[0]).toMatchObject({ Amount: 85.25, Status: 'AUTHORISED', Invoice: { InvoiceID: inv.InvoiceID } });
    const one = await api(server, g.access, `/Invoices/${inv.InvoiceID}`);
    expect(one.body.Invoices).toEqual([expect.objectContaining({ InvoiceID: inv.InvoiceID, Status: 'PAID', AmountDue: 0, AmountPaid: 85.25 })]);
    const over = await api(server, server.writeToken, '/Payments', { method: 'PUT', body: { Invoice: { InvoiceID: inv.InvoiceID }, Account: { Code: '090' }, Amount: 1 } });
    expect(over.status).toBe(400);

    // The next (incremental) sync stores the invoice as paid and its payment.
    expect((await syncOrganisation(store.db, orgId, opts)).outcome).toBe('ok');
    const [row] = await store.db.select().from(s.cashItems).where(and(eq(s.cashItems.orgId, orgId), eq(s.cashItems.id, inv.InvoiceID)));
    expect(row).toMatchObject({ ledgerStatus: 'PAID', amountDue: '0', total: '85.25', paidDate: '2026-11-22' });
    const pays = await store.db.select().from(s.payments).where(and(eq(s.payments.orgId, orgId), eq(s.payments.itemId, inv.InvoiceID)));
    expect(pays.map((p) => p.amount)).toEqual(['85.25']);

    // Webhooks: CONTACT CREATE and INVOICE CREATE, then INVOICE UPDATE (the payment), each batch signed with the key.
    const events = await until(() => {
      const all = hook.got.flatMap((d) => (JSON.parse(d.body) as { events: WebhookEvent[] }).events);
      return all.length >= 3 ? all : undefined;
    });
    expect(hook.got.every((d) => d.valid)).toBe(true);
    expect(events.map((e) => `${e.eventCategory} ${e.eventType}`)).toEqual(['CONTACT CREATE', 'INVOICE CREATE', 'INVOICE UPDATE']);
    const invEvent = events[1]!;
    expect(invEvent).toMatchObject({ resourceId: inv.InvoiceID, resourceUrl: `${server.apiUrl}/Invoices/${inv.InvoiceID}`, tenantId: server.tenantId, tenantType: 'ORGANISATION' });
    // Batches number their events in sequence, with fresh entropy each.
    const batches = hook.got.map((d) => JSON.parse(d.body) as { events: unknown[]; firstEventSequence: number; lastEventSequence: number; entropy: string });
    let next = 1;
    for (const b of batches) {
      expect([b.firstEventSequence, b.lastEventSequence]).toEqual([next, next + b.events.length - 1]);
      expect(b.entropy).toMatch(/^[A-Z]{20}$/);
      next += b.events.length;
    }
    // The server records a delivery when the receiver's answer reaches it, which can be just after the receiver has the body.
    const deliveries = await until(() => (server.webhookDeliveries().length >= hook.got.length ? server.webhookDeliveries() : undefined));
    expect(deliveries.map((d) => d.status)).toEqual(hook.got.map(() => 200));
  });

  it('passes the intent-to-receive check against a receiver that verifies signatures, and fails one that does not', async () => {
    expect(await server.sendIntentToReceive()).toEqual({ signedStatus: 200, unsignedStatus: 401, ok: true });
    const lax = await receiver(key);
    const other = await startXeroServer({ data: server.data, webhook: { url: lax.url, key: 'another key' } });
    try {
      expect(await other.sendIntentToReceive()).toMatchObject({ signedStatus: 401, ok: false });
    } finally {
      await other.close();
      await lax.close();
    }
  });

  it('tries a failed delivery once more after a second', async () => {
    const flaky = await receiver(key, [500]);
    const other = await startXeroServer({ data: datasetFromFiles({}), limits: false, webhook: { url: flaky.url, key, delayMs: 10 } });
    try {
      const c = await api(other, other.writeToken, '/Contacts', { method: 'PUT', tenantId: other.tenantId, body: { Name: 'Retry Pty' } });
      expect(c.status).toBe(200);
      const d = await until(() => (other.webhookDeliveries().length >= 2 ? other.webhookDeliveries() : undefined), 4000);
      expect(d.map((x) => x.status)).toEqual([500, 200]);
      expect(d[1]!.at - d[0]!.at).toBeGreaterThanOrEqual(900);
      expect(d[1]!.body).toBe(d[0]!.body);
    } finally {
      await other.close();
      await flaky.close();
    }
  });
});

describe('cashline-server xero-server (dist/)', () => {
  it('prints the export lines, serves /connections to XERO_SERVER_TOKEN, and stops on SIGTERM', async () => {
    if (!existsSync(SERVER_BIN)) throw new Error(`${SERVER_BIN} is missing: run npm run build`);
    const child = spawn(process.execPath, [SERVER_BIN, 'xero-server', '--port', '0', '--auto-consent', '--scale', '0.02'], {
      env: { PATH: process.env.PATH, CASHLINE_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const vars = await new Promise<Record<string, string>>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (/^export XERO_SERVER_TOKEN=/m.test(out)) resolve(Object.fromEntries([...out.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!])));
      });
      void exited.then(() => reject(new Error(`exited early: ${out}${err}`)));
    });
    try {
      expect(Object.keys(vars)).toEqual(['XERO_CLIENT_ID', 'XERO_CLIENT_SECRET', 'XERO_LOGIN_URL', 'XERO_IDENTITY_URL', 'XERO_API_URL', 'XERO_SERVER_TOKEN']);
      const origin = new URL(vars.XERO_API_URL!).origin;
      expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      const res = await fetch(`${origin}/connections`, { headers: { authorization: `Bearer ${vars.XERO_SERVER_TOKEN}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([expect.objectContaining({ tenantType: 'ORGANISATION', tenantName: 'Harbour & Vine Supplies' })]);
      await until(() => (/^# .*ledger connect --org/m.test(err) ? true : undefined));
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
