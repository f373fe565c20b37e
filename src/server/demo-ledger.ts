/**
 * `cashline-server demo --ledger`: the main demo organisation's books are
 * served by the shipped Xero-compatible server (src/xero-server/) on
 * loopback and connected the way a real Xero is (docs/sync.md "Connect your
 * Xero"): through the consent (authorisation code with PKCE, approved at once
 * by the demo's server, the answer on a loopback address), then synced. Once
 * the API serves, the server's webhooks point at it, and the demo pays one
 * invoice on the ledger side: the change arrives by webhook, is synced, and
 * the banner says how long it took. The workers then keep syncing on their
 * cadence. The other demo organisation is imported as usual.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { dec } from '../domain/money.js';
import type { Db } from '../store/db.js';
import { clearWatermarks } from '../store/queries/connections.js';
import { generateDemo } from '../demo/generate.js';
import { datasetFromFiles, startXeroServer, type XeroServer } from '../xero-server/server.js';
import { type LedgerEndpoint, type SyncResult, syncOrganisation } from '../ledger/sync/sync.js';
import { connectByConsent } from '../ledger/consent.js';
import { GRANULAR_READ_SCOPES } from '../ledger/xero/scopes.js';
import type { OAuthEndpoint } from '../ledger/oauth.js';
import { createOrg, getOrg, setAccountSensitive, setContactSensitive } from '../store/tenancy.js';
import type { CommandContext } from './action.js';
import type { Progress } from './progress.js';
import { DEMO_ORGS } from './demo.js';
import { OperatorError } from './action.js';

/** The demo's own server allows more than Xero's 60 calls a minute, so the first sync takes seconds (Xero's limits apply against Xero). */
const DEMO_PER_MINUTE = 1200;

/** What the banner says of the change made on the ledger side. */
export interface WebhookShow {
  invoiceId: string;
  invoiceNumber: string;
  /** The customer (the invoices list filters by it). */
  contactId: string;
  paid: string;
  /** From the payment at the ledger to the synced invoice, by webhook. */
  arrivedInMs: number;
}

export interface DemoLedger {
  apiUrl: string;
  config: LedgerEndpoint;
  oauth: OAuthEndpoint;
  /** The key the demo's server signs its webhooks with (the service's XERO_WEBHOOK_KEY). */
  webhookKey: string;
  connected: { tenantId: string; tenantName: string; scopes: string[] };
  synced: { orgId: string; outcome: string; records: Record<string, number>; durationMs: number };
  /** Whether this run created the organisation (the banner's `created`). */
  created: boolean;
  /** Points the server's webhooks at the serving API, pays an invoice in the ledger and waits for it to arrive (the webhook's sync calls `arrived`). */
  showWebhook(cashlineUrl: string, waitForSync: (orgId: string) => Promise<SyncResult>): Promise<WebhookShow>;
  close(): Promise<void>;
}

export async function startDemoLedger(ctx: CommandContext, db: Db, progress: Progress): Promise<DemoLedger> {
  const demo = DEMO_ORGS[0];
  const now = ctx.config.clock.now();
  const created = !(await getOrg(db, demo.id));
  if (created) await createOrg(db, { id: demo.id, name: demo.name, plan: demo.plan, ownerName: 'Demo owner', now });
  const out = generateDemo({ seed: demo.seed, asOf: now, scale: demo.scale, name: demo.name, onProgress: (step, d, t) => progress(`generate: ${step}`, d, t) });
  const server = await startXeroServer({ data: datasetFromFiles(out.files), limits: { perMinute: DEMO_PER_MINUTE, concurrent: 5 }, autoConsent: true });
  const keyring = ctx.keyring();
  const config: LedgerEndpoint = { apiUrl: server.apiUrl, identityUrl: server.identityUrl, clientId: server.clientId, clientSecret: server.clientSecret, keyring };
  const oauth: OAuthEndpoint = {
    loginUrl: server.loginUrl,
    identityUrl: server.identityUrl,
    connectionsUrl: server.connectionsUrl,
    clientId: server.clientId,
    clientSecret: server.clientSecret,
    scopes: GRANULAR_READ_SCOPES,
  };
  try {
    // The consent, as `ledger connect` runs it; the demo's server approves at once, so the demo follows its redirect itself.
    progress('consent', 0, 1);
    const connected = await connectByConsent(db, oauth, keyring, {
      orgId: demo.id,
      port: 0,
      timeoutMs: 30_000,
      now: () => ctx.config.clock.now(),
      announce: async (url) => {
        const consent = await fetch(url, { redirect: 'manual' });
        await (await fetch(consent.headers.get('location') ?? url)).text();
      },
    });
    progress('consent', 1, 1);
    // A fresh server is a fresh ledger: read it from the start.
    await clearWatermarks(db, demo.id);
    const r = await syncOrganisation(db, demo.id, {
      ...config,
      now: () => ctx.config.clock.now(),
      force: true,
      client: { perMinute: DEMO_PER_MINUTE },
      onProgress: (resource, done, total) => progress(`sync ${resource}`, done, total),
    });
    progress.done();
    if (r.outcome !== 'ok') throw new OperatorError(`the demo ledger sync failed: ${r.error ?? r.outcome}`);
    for (const contactId of out.sensitive.contactIds) await setContactSensitive(db, demo.id, contactId, true);
    for (const code of out.sensitive.accountCodes) await setAccountSensitive(db, demo.id, code, true);
    const webhookKey = randomBytes(32).toString('base64');
    return {
      apiUrl: server.apiUrl,
      config,
      oauth,
      webhookKey,
      connected: { tenantId: connected.tenantId, tenantName: connected.tenantName, scopes: connected.scopes },
      synced: { orgId: demo.id, outcome: r.outcome, records: r.records as Record<string, number>, durationMs: r.durationMs },
      created,
      showWebhook: (cashlineUrl, waitForSync) => payOneInvoice(server, webhookKey, cashlineUrl, () => waitForSync(demo.id)),
      close: () => server.close(),
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/**
 * The ledger-side change of the demo: the oldest open sales invoice is paid
 * in full through Xero's API (as a script with the server's token would),
 * and the service hears of it by webhook.
 */
async function payOneInvoice(server: XeroServer, key: string, cashlineUrl: string, synced: () => Promise<SyncResult>): Promise<WebhookShow> {
  server.setWebhook({ url: `${cashlineUrl}/hooks/xero`, key, delayMs: 100 });
  const open = server.data.records.Invoices.filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && Number(i.AmountDue) > 0).sort((a, b) =>
    String(a.DueDateString ?? a.DueDate ?? '').localeCompare(String(b.DueDateString ?? b.DueDate ?? '')),
  )[0];
  const bank = server.data.records.Accounts.find((a) => a.Type === 'BANK');
  if (!open || !bank) throw new OperatorError('the demo ledger has no open invoice to pay');
  const t0 = performance.now();
  const arrival = synced();
  const res = await putOnce(`${server.apiUrl}/Payments`, { authorization: `Bearer ${server.writeToken}`, 'xero-tenant-id': server.tenantId }, {
    Payments: [{ Invoice: { InvoiceID: open.InvoiceID }, Account: { AccountID: bank.AccountID }, Amount: open.AmountDue, Reference: 'Paid in the ledger by the demo' }],
  });
  if (res.status !== 200) throw new OperatorError(`the demo ledger refused the payment (HTTP ${res.status})`);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OperatorError('the change made in the demo ledger did not arrive by webhook within 15 s')), 15_000);
  });
  const r = await Promise.race([arrival, late]).finally(() => clearTimeout(timer));
  if (r.outcome !== 'ok') throw new OperatorError(`the webhook's sync failed: ${r.error ?? r.outcome}`);
  const contactId = String((open.Contact as { ContactID?: unknown } | undefined)?.ContactID ?? '');
  return { invoiceId: String(open.InvoiceID), invoiceNumber: String(open.InvoiceNumber ?? ''), contactId, paid: dec(String(open.AmountDue)).toFixed(2), arrivedInMs: Math.round(performance.now() - t0) };
}

/**
 * One PUT on a connection of its own: a payment is not idempotent, so it must
 * not go out on a pooled keep-alive connection the server may be closing
 * (the sync's idle connections to the same server time out meanwhile: an
 * ECONNRESET the client may not retry).
 */
function putOnce(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'PUT', agent: false, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end(text);
  });
}
