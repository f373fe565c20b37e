/**
 * Issue 20: connecting a real Xero, end to end over real HTTP against the
 * shipped Xero-compatible server (its identity service, consent page, write
 * API and webhooks): the command-line consent (PKCE, loopback redirect; a
 * refused consent, a forged state, a timeout, the tenant choice), the web
 * consent from a signed link (the browser's cookie, a replayed callback, a
 * forged one, the choice page), a change on the ledger arriving by webhook
 * and visible through /api/agent/invoices within 10 seconds, a forged
 * webhook refused, scopes not granted and endpoints Xero keeps (a
 * ledgerAlert, not a failed sync), and disconnect with revocation.
 * The sealing of the tokens is test/token-sealing.test.ts's.
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { startTestApi, type TestApi } from './helpers/http.js';
import { NOW, syncEnv, syncOpts, TEST_ENCRYPTION_KEY, testKeyring, xeroServer } from './helpers/ledger.js';
import { SERVER_BIN } from './helpers/net.js';
import { rows } from '../src/store/db.js';
import { connectByConsent, connectLink, disconnectLedger, type CliConsentOptions } from '../src/ledger/consent.js';
import { ConsentError, type OAuthEndpoint } from '../src/ledger/oauth.js';
import { connectLedger, connectionsDue, syncOrganisation, type SyncOptions, type SyncResult } from '../src/ledger/sync/sync.js';
import { GRANULAR_READ_SCOPES } from '../src/ledger/xero/scopes.js';
import { SyncTrigger } from '../src/jobs/sync-trigger.js';
import { workerTick } from '../src/jobs/worker.js';
import { consentFlow } from '../src/server/ledger-web.js';
import type { XeroServer } from '../src/xero-server/server.js';
import type { ConsentFlow } from '../src/api/context.js';

const ENCRYPTION_KEY = TEST_ENCRYPTION_KEY;
const WEBHOOK_KEY = randomBytes(32).toString('base64');
const keyring = testKeyring;

const oauthOf = (xs: XeroServer): OAuthEndpoint => ({
  loginUrl: xs.loginUrl,
  identityUrl: xs.identityUrl,
  connectionsUrl: xs.connectionsUrl,
  clientId: xs.clientId,
  clientSecret: xs.clientSecret,
  scopes: GRANULAR_READ_SCOPES,
});
const ledgerOf = (xs: XeroServer): SyncOptions => syncOpts(xs, { now: () => new Date() });

/** Plays the browser on the consent page: follows Xero's redirects to the loopback address (optionally altering them first). */
const browser =
  (alter: (location: URL) => void = () => {}) =>
  async (url: string) => {
    const consent = await fetch(url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    alter(back);
    await (await fetch(back)).text();
  };

function cliOpts(orgId: string, extra: Partial<CliConsentOptions> = {}): CliConsentOptions {
  return { orgId, port: 0, timeoutMs: 10_000, announce: browser(), now: () => NOW, ...extra };
}

/** Runs `cashline-server` on the test's PostgreSQL store, pointed at the shipped Xero server. */
function runServer(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, ...syncEnv(xs, api.store.url!), XERO_LOGIN_URL: xs.loginUrl, CASHLINE_ENCRYPTION_KEY: ENCRYPTION_KEY, ...extra };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SERVER_BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A cookie jar of one: the consent cookie the service sets. */
function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  return set.split(';')[0]!;
}

let api: TestApi;
let xs: XeroServer;
let trigger: SyncTrigger;
const synced: SyncResult[] = [];
/** The web consent's ledger side; a test swaps it for one over another Xero. */
let flow: ConsentFlow;

beforeAll(async () => {
  xs = await xeroServer({ autoConsent: true, limits: { perMinute: 100_000, concurrent: 5 } });
  api = await startTestApi('postgres', {
    env: { CASHLINE_ENCRYPTION_KEY: ENCRYPTION_KEY, XERO_WEBHOOK_KEY: WEBHOOK_KEY },
    captureLogs: true,
    server: (store, config, logger) => {
      trigger = new SyncTrigger({ db: store.db, ledger: ledgerOf(xs), clock: config.clock, debounceMs: 200, onSynced: (r) => synced.push(r) });
      flow = consentFlow(config, store, logger, oauthOf(xs))!;
      const consent: ConsentFlow = { begin: (q, u) => flow.begin(q, u), finish: (q) => flow.finish(q), choose: (q) => flow.choose(q) };
      return { consent, onLedgerChanged: (ids) => trigger.request(ids) };
    },
  });
  xs.setWebhook({ url: `${api.url}/hooks/xero`, key: WEBHOOK_KEY, delayMs: 50 });
}, 60_000);

afterAll(async () => {
  await trigger?.close();
  await api?.close();
  await xs?.close();
});

const newOrg = async (name = 'Connected Traders') => (await api.org({ name })).orgId;
const connection = async (orgId: string) =>
  (await rows<Record<string, unknown>>(api.store.db, sql`select * from ledger_connections where org_id = ${orgId}`))[0]!;

describe('the command-line consent', () => {
  it('connects through the consent page: PKCE code, loopback redirect, granted scopes, the tenant stored', async () => {
    const orgId = await newOrg();
    const r = await connectByConsent(api.store.db, oauthOf(xs), keyring, cliOpts(orgId));
    expect(r).toMatchObject({ orgId, tenantId: xs.tenantId, tenantName: xs.data.organisation.Name });
    expect(r.scopes).toEqual(expect.arrayContaining([...GRANULAR_READ_SCOPES]));
    const row = await connection(orgId);
    expect(row).toMatchObject({ tenant_id: xs.tenantId, connection_id: r.connectionId, token_state: 'ok' });
    expect(xs.connections().some((c) => c.id === r.connectionId && c.tenantId === xs.tenantId)).toBe(true);
    const sync = await syncOrganisation(api.store.db, orgId, { ...ledgerOf(xs), force: true });
    expect(sync.outcome).toBe('ok');
    expect(sync.unavailable).toEqual([]);
  });

  it('a PKCE-only app (no client secret): the code exchange and the sync\'s refresh send the client id alone', async () => {
    const pkce = await xeroServer({ autoConsent: true, requireClientSecret: false });
    try {
      const orgId = await newOrg();
      const ep = { ...oauthOf(pkce), clientSecret: undefined };
      expect((await connectByConsent(api.store.db, ep, keyring, cliOpts(orgId))).tenantId).toBe(pkce.tenantId);
      pkce.expireAccessTokens(); // the sync must refresh
      const r = await syncOrganisation(api.store.db, orgId, { ...ledgerOf(pkce), clientSecret: undefined, force: true, resources: ['Contacts'] });
      expect(r).toMatchObject({ outcome: 'ok', refreshes: 1 });
    } finally {
      await pkce.close();
    }
  });

  it('a refused consent, a forged state and a timeout fail with what to do', async () => {
    const orgId = await newOrg();
    const deny = await xeroServer({ autoConsent: 'deny' });
    try {
      await expect(connectByConsent(api.store.db, oauthOf(deny), keyring, cliOpts(orgId))).rejects.toMatchObject({ kind: 'access_denied', message: expect.stringMatching(/refused.*run the command again/) });
    } finally {
      await deny.close();
    }
    const forged = browser((u) => u.searchParams.set('state', 'forged-state'));
    await expect(connectByConsent(api.store.db, oauthOf(xs), keyring, cliOpts(orgId, { announce: forged }))).rejects.toMatchObject({ kind: 'state_mismatch' });
    await expect(connectByConsent(api.store.db, oauthOf(xs), keyring, cliOpts(orgId, { announce: () => {}, timeoutMs: 300 }))).rejects.toMatchObject({ kind: 'timeout' });
    expect(await rows(api.store.db, sql`select 1 from ledger_connections where org_id = ${orgId}`)).toHaveLength(0);
  });

  it('several organisations authorised: --tenant picks by name or id, otherwise asked, or an error listing them', async () => {
    const two = await xeroServer({ autoConsent: true, tenants: [{ tenantId: 'b7f5b1a4-0000-4000-8000-000000000002', tenantName: 'Second Books Ltd' }] });
    try {
      const orgId = await newOrg();
      const err = await connectByConsent(api.store.db, oauthOf(two), keyring, cliOpts(orgId)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConsentError);
      expect((err as ConsentError).message).toMatch(/Second Books Ltd.*--tenant|--tenant.*Second Books Ltd/s);
      const byName = await connectByConsent(api.store.db, oauthOf(two), keyring, cliOpts(orgId, { tenant: 'second books ltd' }));
      expect(byName.tenantId).toBe('b7f5b1a4-0000-4000-8000-000000000002');
      const other = await newOrg();
      const asked = await connectByConsent(api.store.db, oauthOf(two), keyring, cliOpts(other, { ask: async (list) => list.find((t) => t.tenantId === two.tenantId)! }));
      expect(asked.tenantId).toBe(two.tenantId);
      // An organisation holding one ledger's books is not connected to another's.
      expect((await syncOrganisation(api.store.db, other, { ...ledgerOf(two), force: true })).outcome).toBe('ok');
      await expect(connectByConsent(api.store.db, oauthOf(two), keyring, cliOpts(other, { tenant: 'Second Books Ltd' }))).rejects.toMatchObject({ kind: 'tenant_mismatch' });
    } finally {
      await two.close();
    }
  });

  it('`cashline-server ledger connect --no-browser`: the address alone on a line of stderr, JSON on stdout; a refusal exits 1', async () => {
    const orgId = await newOrg();
    const env = { ...process.env, ...syncEnv(xs, api.store.url!), XERO_LOGIN_URL: xs.loginUrl, CASHLINE_ENCRYPTION_KEY: ENCRYPTION_KEY };
    const run = (args: string[]) => {
      const child = spawn(process.execPath, [SERVER_BIN, 'ledger', 'connect', '--org', orgId, '--no-browser', '--port', '0', ...args], { env });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      const firstLine = new Promise<string>((resolve) =>
        child.stderr.on('data', (d) => {
          err += d;
          if (err.includes('\n')) resolve(err.split('\n')[0]!);
        }),
      );
      const exit = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
      return { firstLine, exit, out: () => out, err: () => err };
    };
    const ok = run([]);
    const address = await ok.firstLine;
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/identity\/connect\/authorize\?\S+$/);
    await browser()(address);
    expect(await ok.exit).toBe(0);
    const printed = JSON.parse(ok.out()) as { tenantId: string; tenantName: string; scopes: string[] };
    expect(printed).toMatchObject({ tenantId: xs.tenantId, tenantName: xs.data.organisation.Name });
    expect(printed.scopes).toContain('accounting.invoices.read');

    const refused = run([]);
    const denyAt = new URL(await refused.firstLine);
    // The user presses Cancel on the consent page: Xero sends the browser back with access_denied.
    const back = new URL(denyAt.searchParams.get('redirect_uri')!);
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('state', denyAt.searchParams.get('state')!);
    await (await fetch(back)).text();
    expect(await refused.exit).toBe(1);
    expect(refused.err()).toMatch(/error: .*refused.*run the command again/);
  }, 30_000);
});

describe('the web consent', () => {
  it('from a signed link: redirect with a cookie, callback, connected; a replayed or forged callback is refused', async () => {
    const orgId = await newOrg();
    // The owner's link, as `cashline-server ledger link` prints it (at CASHLINE_PUBLIC_URL, signed with the service's key).
    const linked = await runServer(['ledger', 'link', '--org', orgId, '--minutes', '5'], { CASHLINE_PUBLIC_URL: api.url, CASHLINE_NOW: '' });
    expect(linked.code).toBe(0);
    const link = JSON.parse(linked.stdout) as { url: string; expiresAt: string };
    expect(link.url.startsWith(`${api.url}/connect/xero?org=${orgId}&expires=`)).toBe(true);
    expect(Date.parse(link.expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    const start = await fetch(link.url, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const cookie = cookieOf(start);
    expect(start.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    const atXero = new URL(start.headers.get('location')!);
    expect(atXero.origin + atXero.pathname).toBe(`${xs.loginUrl}/identity/connect/authorize`);
    expect(atXero.searchParams.get('code_challenge_method')).toBe('S256');
    const consent = await fetch(atXero, { redirect: 'manual' });
    const callback = consent.headers.get('location')!;
    expect(callback.startsWith(`${api.url}/connect/xero/callback?`)).toBe(true);

    const forged = await fetch(callback); // another browser: no cookie
    expect(forged.status).toBe(400);
    const done = await fetch(callback, { headers: { cookie } });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Xero connected');
    expect(await connection(orgId)).toMatchObject({ tenant_id: xs.tenantId, token_state: 'ok' });
    const replay = await fetch(callback, { headers: { cookie } });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toMatch(/already used|unknown/);

    const tampered = new URL(link.url);
    tampered.searchParams.set('org', await newOrg());
    expect((await fetch(tampered, { redirect: 'manual' })).status).toBe(403);
    const unsigned = await fetch(`${api.url}/connect/xero?org=${orgId}`, { redirect: 'manual' });
    expect(unsigned.status).toBe(403);
    expect(await unsigned.text()).toContain('ledger link');
  });

  it('several organisations authorised: the page asks, the choice connects', async () => {
    const two = await xeroServer({ autoConsent: true, tenants: [{ tenantId: 'c1f5b1a4-0000-4000-8000-000000000003', tenantName: 'Third Books <Ltd>' }] });
    flow = consentFlow(api.config, api.store, api.logger, oauthOf(two))!;
    try {
      const orgId = await newOrg();
      const start = await fetch(connectLink(keyring, api.url, orgId, new Date()).url, { redirect: 'manual' });
      const cookie = cookieOf(start);
      const callback = (await fetch(start.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!;
      const choose = await fetch(callback, { headers: { cookie } });
      expect(choose.status).toBe(200);
      const html = await choose.text();
      expect(html).toContain('Third Books &#60;Ltd&#62;'); // escaped
      const state = /name="state" value="([^"]+)"/.exec(html)![1]!;
      const picked = await fetch(`${api.url}/connect/xero/tenant`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ state, tenantId: 'c1f5b1a4-0000-4000-8000-000000000003' }),
      });
      expect(picked.status).toBe(200);
      expect(await connection(orgId)).toMatchObject({ tenant_id: 'c1f5b1a4-0000-4000-8000-000000000003', tenant_name: 'Third Books <Ltd>' });
      const again = await fetch(`${api.url}/connect/xero/tenant`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ state, tenantId: two.tenantId }),
      });
      expect(again.status).toBe(400);
    } finally {
      flow = consentFlow(api.config, api.store, api.logger, oauthOf(xs))!;
      await two.close();
    }
  });
});

describe('webhooks', () => {
  const sign = (body: string, key = WEBHOOK_KEY) => createHmac('sha256', key).update(body).digest('base64');
  const post = (body: string, signature: string | null) =>
    fetch(`${api.url}/hooks/xero`, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'x-xero-signature': signature } : {}) }, body });

  it("answers Xero's intent-to-receive check: 200 signed, 401 otherwise; a forged or unsigned batch changes nothing", async () => {
    expect(await xs.sendIntentToReceive()).toMatchObject({ signedStatus: 200, unsignedStatus: 401, ok: true });
    const orgId = await newOrg();
    await connectByConsent(api.store.db, oauthOf(xs), keyring, cliOpts(orgId));
    const body = JSON.stringify({ events: [{ tenantId: xs.tenantId, eventCategory: 'INVOICE', eventType: 'UPDATE', resourceId: 'x' }], firstEventSequence: 1, lastEventSequence: 1, entropy: 'ABC' });
    expect((await post(body, sign(body, 'not-the-key'))).status).toBe(401);
    expect((await post(body, null)).status).toBe(401);
    expect((await post(`${body} `, sign(body))).status).toBe(401); // the signature is of the raw bytes
    expect((await connection(orgId)).sync_requested_at).toBeNull();
    const unknown = JSON.stringify({ events: [{ tenantId: 'no-such-tenant', eventCategory: 'INVOICE' }], entropy: 'X' });
    expect((await post(unknown, sign(unknown))).status).toBe(200);
    expect(api.logs.some((l) => String(l.msg).includes('tenants no organisation is connected to'))).toBe(true);
  });

  it('a request for a sync outlives the process: the workers sync a requested organisation under a claim of its own', async () => {
    const orgId = await newOrg();
    await connectByConsent(api.store.db, oauthOf(xs), keyring, cliOpts(orgId));
    // The service's clock (the webhook stamps its request with it) runs on from the sync.
    const now = api.clock.now();
    expect((await syncOrganisation(api.store.db, orgId, { ...ledgerOf(xs), now: () => now, force: true })).outcome).toBe('ok');
    api.clock.advance(1000);
    const due = async () => (await connectionsDue(api.store.db, api.clock.now(), 30 * 60_000)).find((d) => d.orgId === orgId);
    expect(await due()).toBeUndefined(); // synced a moment ago: not due on the cadence
    const body = JSON.stringify({ events: [{ tenantId: xs.tenantId, eventCategory: 'CONTACT', eventType: 'UPDATE', resourceId: 'c' }], entropy: 'Y' });
    await trigger.close(); // this process "dies" before its prompt sync
    try {
      expect((await post(body, sign(body))).status).toBe(200);
      expect((await due())?.requested).toBeInstanceOf(Date);
      // A worker's tick syncs it (the cadence's bucket of this half hour is not the request's claim), and then it is not due.
      const tick = await workerTick({ db: api.store.db, clock: api.clock, ledger: ledgerOf(xs), llm: null, syncEveryMs: 30 * 60_000, jobs: ['sync'] });
      expect(tick.syncs.find((x) => x.orgId === orgId)).toMatchObject({ outcome: 'ok' });
      api.clock.advance(1000);
      expect(await due()).toBeUndefined();
    } finally {
      trigger = new SyncTrigger({ db: api.store.db, ledger: ledgerOf(xs), clock: api.config.clock, debounceMs: 200, onSynced: (r) => synced.push(r) });
    }
  });

  it('a payment made in the ledger arrives by webhook and shows through /api/agent/invoices within 10 seconds', async () => {
    const orgId = await newOrg('Webhook Traders');
    await connectByConsent(api.store.db, oauthOf(xs), keyring, cliOpts(orgId));
    expect((await syncOrganisation(api.store.db, orgId, { ...ledgerOf(xs), force: true })).outcome).toBe('ok');
    const key = await api.key(orgId);
    const open = xs.data.records.Invoices.find((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && Number(i.AmountDue) > 0)!;
    const bank = xs.data.records.Accounts.find((a) => a.Type === 'BANK')!;
    type Doc = { id: string; ledgerStatus: string; amountDue: string };
    // The invoice as an agent reads it: the customer's invoices, this one among them.
    const read = async () =>
      ((await (await api.get(`/api/agent/invoices?contactId=${(open.Contact as { ContactID: string }).ContactID}&limit=200`, key)).json()).invoices as Doc[]).find((d) => d.id === open.InvoiceID)!;
    const before = await read();
    expect(before.ledgerStatus).toBe('AUTHORISED');

    const t0 = performance.now();
    const paid = await fetch(`${xs.apiUrl}/Payments`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${xs.writeToken}`, 'xero-tenant-id': xs.tenantId, 'content-type': 'application/json' },
      body: JSON.stringify({ Payments: [{ Invoice: { InvoiceID: open.InvoiceID }, Account: { AccountID: bank.AccountID }, Date: '2026-11-23', Amount: Number(open.AmountDue) }] }),
    });
    expect(paid.status).toBe(200);
    let after = before;
    while (performance.now() - t0 < 10_000) {
      after = await read();
      if (after.ledgerStatus === 'PAID') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const arrivedMs = performance.now() - t0;
    expect(after).toMatchObject({ ledgerStatus: 'PAID' });
    expect(Number(after.amountDue)).toBe(0);
    expect(arrivedMs).toBeLessThan(10_000);
    expect(xs.webhookDeliveries().some((d) => d.status === 200 && d.body.includes(String(open.InvoiceID)))).toBe(true);
    // The prompt sync's result: the invoice shows as soon as its page is written, the run ends a moment later.
    while (!synced.some((r) => r.orgId === orgId) && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
    expect(synced.some((r) => r.orgId === orgId && r.outcome === 'ok')).toBe(true);
  });
});

describe('scopes and endpoints the app may not read', () => {
  it('a scope not granted, or an endpoint Xero keeps for other apps, leaves the resource out and says so; the rest syncs', async () => {
    const narrow = await xeroServer({ autoConsent: true, grantScopes: (req) => req.filter((s) => s !== 'accounting.journals.read') });
    const kept = await xeroServer({ autoConsent: true, forbidden: ['/Journals'] });
    try {
      const a = await newOrg();
      const granted = await connectByConsent(api.store.db, oauthOf(narrow), keyring, cliOpts(a));
      expect(granted.scopes).not.toContain('accounting.journals.read');
      const r = await syncOrganisation(api.store.db, a, { ...ledgerOf(narrow), force: true });
      expect(r.outcome).toBe('ok');
      expect(r.unavailable).toEqual([expect.objectContaining({ resource: 'Journals', scope: 'accounting.journals.read', reason: 'scope_not_granted' })]);
      expect(narrow.requests.some((q) => q.path.startsWith('/Journals'))).toBe(false); // not even asked
      expect(r.records.Invoices).toBeGreaterThan(0);
      const alert = (await (await api.get('/api/agent/invoices?limit=1', await api.key(a))).json()).ledgerAlert;
      expect(alert).toMatchObject({ kind: 'service_issue', reason: 'resource_unavailable', cta: { url: `${api.url}/connect/xero?org=${a}` } });
      expect(alert.message).toMatch(/Journals.*accounting\.journals\.read.*account balances/);

      const b = await newOrg();
      await connectByConsent(api.store.db, oauthOf(kept), keyring, cliOpts(b));
      const rb = await syncOrganisation(api.store.db, b, { ...ledgerOf(kept), force: true });
      expect(rb.outcome).toBe('ok');
      expect(rb.unavailable).toEqual([expect.objectContaining({ resource: 'Journals', reason: 'not_permitted' })]);
      expect(rb.records.Payments).toBeGreaterThan(0);
    } finally {
      await narrow.close();
      await kept.close();
    }
  });
});

describe('disconnect', () => {
  it('removes the connection at Xero, revokes the refresh token, deletes the tokens; the books stay, marked not updating', async () => {
    const orgId = await newOrg('Leaving Traders');
    const c = await connectByConsent(api.store.db, oauthOf(xs), keyring, cliOpts(orgId));
    expect((await syncOrganisation(api.store.db, orgId, { ...ledgerOf(xs), force: true })).outcome).toBe('ok');
    const grant = xs.connections().find((x) => x.id === c.connectionId)!;
    const r = await disconnectLedger(api.store.db, oauthOf(xs), keyring, orgId, new Date());
    expect(r).toMatchObject({ orgId, tenantId: xs.tenantId, connectionRemoved: true, tokenRevoked: true, tokensDeleted: true, warnings: [] });
    expect(xs.connections().some((x) => x.id === c.connectionId)).toBe(false);
    expect(xs.isRevoked(grant.refreshToken)).toBe(true);
    const row = await connection(orgId);
    expect(row).toMatchObject({ access_token: null, refresh_token: null, token_state: 'disconnected' });
    const key = await api.key(orgId);
    const list = await (await api.get('/api/agent/invoices?limit=1&totals=true', key)).json();
    expect(list.totalCount).toBeGreaterThan(0);
    expect(list.ledgerAlert).toMatchObject({ kind: 'no_connection', reason: 'disconnected' });
    expect((await syncOrganisation(api.store.db, orgId, ledgerOf(xs))).outcome).toBe('skipped');
    await expect(disconnectLedger(api.store.db, oauthOf(xs), keyring, orgId, new Date())).rejects.toMatchObject({ kind: 'not_connected' });
    // Connected again (here a connection made elsewhere, `ledger connect --refresh-token`): no longer marked disconnected.
    await connectLedger(api.store.db, keyring, { orgId, tenantId: xs.tenantId, refreshToken: xs.issueGrant().refreshToken, now: new Date() });
    expect(await connection(orgId)).toMatchObject({ token_state: 'ok', disconnected_at: null, connection_id: null });
    expect((await syncOrganisation(api.store.db, orgId, { ...ledgerOf(xs), force: true })).outcome).toBe('ok');
    expect((await (await api.get('/api/agent/invoices?limit=1', key)).json()).ledgerAlert).toBeUndefined();
  });
});
