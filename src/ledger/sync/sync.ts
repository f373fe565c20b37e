/**
 * The live ledger sync of one organisation (docs/sync.md): an incremental
 * pull from its Xero connection into the store, through the importer's
 * mapping (src/ledger/map/) and writers (src/store/ledger-write/).
 *
 * - Watermark per resource (`sync_watermarks`): `modified_since` (W) and
 *   `next_page` (p). Paged resources are asked for `If-Modified-Since: W`,
 *   ordered by UpdatedDateUTC, page p. After a full page whose newest record
 *   is newer than W, the state becomes (that newest time, page 1): every
 *   older record has been stored; after a full page of records all stamped
 *   W, it becomes (W, p + 1); a short page ends the pass. The server's
 *   If-Modified-Since is inclusive, so the boundary's ties are read again
 *   (an idempotent upsert) rather than lost.
 * - Each page's rows and the watermark that follows it are written in one
 *   transaction (under the organisation's ledger advisory lock, shared with
 *   the importer): a kill at any point loses nothing, and re-running resumes
 *   where the last committed page left off and converges to the same rows.
 * - Journals page by `offset` (the last JournalNumber stored); Organisation,
 *   Reports/BankSummary and RepeatingInvoices (Xero neither pages it nor
 *   honours If-Modified-Since on it) are read whole each run; the whole list
 *   of repeating invoices replaces the stored one.
 * - The connection row records the outcome: tokens (rotated refresh tokens
 *   are saved at once), token_state, the circuit breaker, last success and
 *   last error; the envelope's ledgerAlert reads it (src/api/envelope.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/db.js';
import { writeLedgerBatch } from '../../store/ledger-write/batch.js';
import { LedgerWriteError } from '../../store/ledger-write/common.js';
import { withLedgerLock } from '../../store/ledger-write/lock.js';
import {
  insertImportRun,
  ledgerConnection,
  loadWatermarks,
  orgLedgerInfo,
  saveWatermark,
  updateConnection,
  upsertConnection,
  usableConnections,
} from '../../store/queries/connections.js';
import { mapPage, recordsOf, type Resource, XeroRecordError } from '../map/page.js';
import type { MapContext } from '../map/shared.js';
import type { LedgerBatch } from '../../store/rows.js';
import { parseXeroTimestamp } from '../xero/dates.js';
import { XeroClient, type XeroClientOptions, XeroError } from './client.js';
import { type Keyring, type KeyringConfig, loadKeyring, SealError } from '../seal.js';
import { loadTokens, saveTokens, sealTokens } from '../tokens.js';
import { scopesFor } from '../xero/scopes.js';

/** Failed runs in a row that open the breaker (reconnect_required). */
export const BREAKER_THRESHOLD = 5;
/** After this, an open breaker lets one trial run through (half-open). */
export const BREAKER_COOLDOWN_MS = 60 * 60_000;
export const DEFAULT_PAGE_SIZE = 1000;

const PAGED = ['Contacts', 'Invoices', 'CreditNotes', 'Overpayments', 'Prepayments', 'PurchaseOrders', 'Payments', 'BankTransactions'] as const;
type Paged = (typeof PAGED)[number];
/** What one run reads, after Organisation. */
export const SYNC_RESOURCES = ['Accounts', ...PAGED, 'Journals', 'BankSummary', 'RepeatingInvoices'] as const;
export type SyncResource = 'Organisation' | (typeof SYNC_RESOURCES)[number];

export class SyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncError';
  }
}

export interface LedgerEndpoint {
  apiUrl: string;
  identityUrl: string;
  clientId: string;
  /** Absent for a PKCE-only app (no secret). */
  clientSecret?: string | undefined;
  /** Seals and opens the connection's tokens (src/ledger/seal.ts). */
  keyring: Keyring;
}

export interface SyncOptions extends LedgerEndpoint {
  /** The service clock (stamps rows and the connection). */
  now: () => Date;
  pageSize?: number;
  /** Client tuning (timeouts, retries, limits). */
  client?: Partial<Omit<XeroClientOptions, 'tokens' | 'tenantId' | Exclude<keyof LedgerEndpoint, 'keyring'>>>;
  onProgress?: (resource: string, done: number, total: number) => void;
  /** Called after every stored page (workers renew their lease). */
  heartbeat?: () => Promise<void>;
  /** Run even while the breaker is open and cooling down (the operator's `sync`). */
  force?: boolean;
  log?: (level: 'info' | 'warn', msg: string, extra?: Record<string, unknown>) => void;
  /** Resources to read (default all). */
  resources?: readonly (typeof SYNC_RESOURCES)[number][];
}

export interface SyncResult {
  orgId: string;
  runId: string;
  outcome: 'ok' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  error?: string;
  errorKind?: string;
  records: Partial<Record<SyncResource, number>>;
  /** Resources left out: a scope not granted, or an endpoint Xero does not let this app call. */
  unavailable: UnavailableResource[];
  pages: number;
  calls: number;
  retries: number;
  refreshes: number;
  bytes: number;
  durationMs: number;
  connection: { tokenState: string; breakerState: string; consecutiveFailures: number; lastSuccessfulSync: string | null };
}

/**
 * The ledger settings of the configuration (XERO_*) and its keyring
 * (CASHLINE_ENCRYPTION_KEY or the embedded store's key file), or an error
 * naming what is missing. Without a key on PostgreSQL the keyring throws
 * only when a token is touched.
 */
export function ledgerEndpoint(
  config: {
    XERO_API_URL: string;
    XERO_IDENTITY_URL: string;
    XERO_CLIENT_ID?: string | undefined;
    XERO_CLIENT_SECRET?: string | undefined;
  } & KeyringConfig,
): LedgerEndpoint {
  // The secret only for a web app: a PKCE-only app refreshes with its client id alone.
  if (!config.XERO_CLIENT_ID) throw new SyncError('XERO_CLIENT_ID must be set to sync a ledger (and XERO_CLIENT_SECRET for a web app)');
  return {
    apiUrl: config.XERO_API_URL.replace(/\/+$/, ''),
    identityUrl: config.XERO_IDENTITY_URL.replace(/\/+$/, ''),
    clientId: config.XERO_CLIENT_ID,
    clientSecret: config.XERO_CLIENT_SECRET,
    keyring: loadKeyring(config),
  };
}

/**
 * Creates or replaces an organisation's ledger connection (after the OAuth
 * consent), its tokens sealed: healthy, never synced, connected again if it
 * had been disconnected, with what the consent told (Xero's connection id,
 * the tenant's name, the scopes granted; null when made elsewhere).
 */
export async function connectLedger(
  db: Db,
  keyring: Keyring,
  input: {
    orgId: string;
    tenantId: string;
    refreshToken: string;
    accessToken?: string;
    accessTokenExpiresAt?: Date;
    now: Date;
    consent?: { connectionId: string; tenantName: string; scopes: readonly string[] };
  },
): Promise<void> {
  const sealed = sealTokens(keyring, input.orgId, { accessToken: input.accessToken ?? null, refreshToken: input.refreshToken });
  const values = {
    tenantId: input.tenantId,
    refreshToken: sealed.refreshToken!,
    accessToken: sealed.accessToken,
    secretsKeyId: sealed.secretsKeyId,
    accessTokenExpiresAt: input.accessTokenExpiresAt ?? null,
    tokenState: 'ok',
    breakerState: 'closed',
    breakerOpenedAt: null,
    consecutiveFailures: 0,
    lastError: null,
    connectionId: input.consent?.connectionId ?? null,
    tenantName: input.consent?.tenantName ?? null,
    scopes: input.consent ? input.consent.scopes.join(' ') : null,
    unavailable: [],
    disconnectedAt: null,
    syncRequestedAt: null,
  };
  await upsertConnection(db, input.orgId, input.now, values);
}

const loadConnection = ledgerConnection;

function maxUpdated(records: unknown[], field = 'UpdatedDateUTC'): Date | null {
  let best: number | null = null;
  for (const r of records) {
    const v = (r as Record<string, unknown> | null)?.[field];
    if (typeof v !== 'string') continue;
    const t = parseXeroTimestamp(v)?.getTime();
    if (t !== undefined && (best === null || t > best)) best = t;
  }
  return best === null ? null : new Date(best);
}

type Connection = NonNullable<Awaited<ReturnType<typeof loadConnection>>>;
type Next = { modifiedSince: Date | null; nextPage: number };

/** The Xero client of a run, its tokens kept on the connection row. */
function clientFor(db: Db, orgId: string, conn: Connection, opts: SyncOptions): XeroClient {
  return new XeroClient({
    ...opts.client,
    apiUrl: opts.apiUrl,
    identityUrl: opts.identityUrl,
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    tenantId: conn.tenantId,
    tokens: {
      async load() {
        const t = await loadTokens(db, opts.keyring, orgId);
        return { accessToken: t?.accessToken ?? null, expiresAt: t?.expiresAt?.getTime() ?? null, refreshToken: t?.refreshToken ?? null };
      },
      async save(t) {
        await saveTokens(db, opts.keyring, orgId, { accessToken: t.accessToken, refreshToken: t.refreshToken, expiresAt: t.expiresAt ? new Date(t.expiresAt) : null });
      },
    },
    onRetry: (e) => opts.log?.('warn', 'ledger call retried', { orgId, ...e }),
  });
}

/**
 * One run's reading of the ledger: each resource page by page, each page
 * mapped and written with its watermark in one transaction. The first
 * failure stops every resource (the others finish their current page).
 */
class SyncRun {
  failure: unknown = null;
  private readonly pageSize: number;
  constructor(
    private readonly db: Db,
    private readonly orgId: string,
    private readonly opts: SyncOptions,
    private readonly result: SyncResult,
    private readonly client: XeroClient,
    private readonly ctx: MapContext,
    private readonly watermarks: Awaited<ReturnType<typeof loadWatermarks>>,
  ) {
    this.pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  }

  private count(r: SyncResource, n: number): void {
    this.result.records[r] = (this.result.records[r] ?? 0) + n;
  }

  private async store(resource: SyncResource, batch: LedgerBatch, next: Next | null): Promise<void> {
    await withLedgerLock(this.db, this.orgId, async (t) => {
      await writeLedgerBatch(t, this.orgId, batch);
      if (next) await saveWatermark(t, this.orgId, resource, next, this.opts.now());
    });
    this.result.pages++;
    await this.opts.heartbeat?.();
  }

  private map(resource: Resource, body: unknown): { batch: LedgerBatch; records: unknown[] } {
    try {
      const records = recordsOf(resource, body);
      return { batch: mapPage(resource, body, this.ctx), records };
    } catch (err) {
      if (err instanceof XeroRecordError) throw new SyncError(`${resource}: ${err.message}`);
      throw err;
    }
  }

  /** The organisation first: the tenant check and the base currency of what follows. */
  async pullOrganisation(tenantId: string): Promise<void> {
    const res = await this.client.get('/Organisation');
    const { batch } = this.map('Organisation', res.body);
    if (batch.organisation && batch.organisation.ledgerTenantId !== tenantId) {
      throw new SyncError(`the ledger answered for tenant ${batch.organisation.ledgerTenantId}, not the connected ${tenantId}`);
    }
    await this.store('Organisation', batch, null);
    this.count('Organisation', batch.organisation ? 1 : 0);
    if (batch.organisation?.baseCurrency) this.ctx.baseCurrency = batch.organisation.baseCurrency;
  }

  /** Every wanted resource at once (the client's gate holds Xero's limits); the first failure is kept and rethrown. */
  async pullAll(wanted: readonly (typeof SYNC_RESOURCES)[number][]): Promise<void> {
    const settled = await Promise.allSettled(
      wanted.map(async (r) => {
        try {
          if (r === 'Journals') await this.pullJournals();
          else if (r === 'Accounts' || r === 'BankSummary' || r === 'RepeatingInvoices') await this.pullWhole(r);
          else await this.pullPaged(r);
        } catch (err) {
          // A resource the app may not read (a scope not granted, an endpoint Xero keeps for other apps) is
          // left out and named in the ledger alert; the rest of the sync goes on.
          if (err instanceof XeroError && err.kind === 'forbidden') {
            this.result.unavailable.push(unavailableEntry(r, 'not_permitted'));
            this.opts.log?.('warn', 'ledger resource refused', { orgId: this.orgId, resource: r, error: err.message });
            return;
          }
          this.failure ??= err;
          throw err;
        }
      }),
    );
    void settled;
    if (this.failure) throw this.failure;
  }

  private async pullPaged(resource: Paged): Promise<void> {
    const wm = this.watermarks.get(resource);
    let since = wm?.modifiedSince ?? null;
    let page = wm?.nextPage ?? 1;
    let done = 0;
    let total = 0;
    while (!this.failure) {
      const res = await this.client.get(RESOURCE_PATHS[resource], { page: String(page), pageSize: String(this.pageSize), order: 'UpdatedDateUTC ASC' }, since);
      const { batch, records } = this.map(resource, res.body);
      const pagination = (res.body as { pagination?: { itemCount?: number } } | null)?.pagination;
      if (page === 1 && typeof pagination?.itemCount === 'number') total = Math.max(total, done + pagination.itemCount);
      const newest = maxUpdated(records);
      const full = records.length >= this.pageSize;
      let next: Next;
      if (full) next = newest && (!since || newest > since) ? { modifiedSince: newest, nextPage: 1 } : { modifiedSince: since, nextPage: page + 1 };
      else next = { modifiedSince: newest && (!since || newest > since) ? newest : since, nextPage: 1 };
      await this.store(resource, batch, next);
      this.count(resource, records.length);
      done += records.length;
      this.opts.onProgress?.(resource, done, Math.max(total, done));
      since = next.modifiedSince;
      page = next.nextPage;
      if (!full) return;
    }
  }

  private async pullJournals(): Promise<void> {
    // For Journals, next_page holds the offset: the last JournalNumber stored.
    let offset = this.watermarks.get('Journals')?.nextPage ?? 0;
    let done = 0;
    while (!this.failure) {
      const res = await this.client.get(RESOURCE_PATHS.Journals, { offset: String(offset) });
      const { batch, records } = this.map('Journals', res.body);
      let last = offset;
      for (const r of records) {
        const n = Number((r as { JournalNumber?: unknown }).JournalNumber);
        if (Number.isSafeInteger(n) && n > last) last = n;
      }
      await this.store('Journals', batch, { modifiedSince: null, nextPage: last });
      this.count('Journals', records.length);
      done += records.length;
      this.opts.onProgress?.('Journals', done, done);
      if (records.length < 100 || last === offset) return;
      offset = last;
    }
  }

  private async pullWhole(resource: 'Accounts' | 'BankSummary' | 'RepeatingInvoices'): Promise<void> {
    if (resource === 'RepeatingInvoices') {
      const res = await this.client.get(RESOURCE_PATHS.RepeatingInvoices);
      const { batch, records } = this.map('RepeatingInvoices', res.body);
      await this.store('RepeatingInvoices', batch, { modifiedSince: this.opts.now(), nextPage: 1 });
      this.count('RepeatingInvoices', records.length);
      this.opts.onProgress?.('RepeatingInvoices', records.length, records.length);
      return;
    }
    if (resource === 'Accounts') {
      const since = this.watermarks.get('Accounts')?.modifiedSince ?? null;
      const res = await this.client.get(RESOURCE_PATHS.Accounts, {}, since);
      const { batch, records } = this.map('Accounts', res.body);
      const newest = maxUpdated(records);
      await this.store('Accounts', batch, { modifiedSince: newest && (!since || newest > since) ? newest : since, nextPage: 1 });
      this.count('Accounts', records.length);
      this.opts.onProgress?.('Accounts', records.length, records.length);
      return;
    }
    const res = await this.client.get(RESOURCE_PATHS.BankSummary);
    const { batch } = this.map('BankSummary', res.body);
    await this.store('BankSummary', batch, { modifiedSince: this.opts.now(), nextPage: 1 });
    this.count('BankSummary', batch.bankSummary.balances.length);
    this.opts.onProgress?.('BankSummary', 1, 1);
  }
}

/** The Accounting API path of a resource (what Xero's scopes open). */
export const RESOURCE_PATHS: Record<(typeof SYNC_RESOURCES)[number], string> = {
  Accounts: '/Accounts',
  Contacts: '/Contacts',
  Invoices: '/Invoices',
  CreditNotes: '/CreditNotes',
  Overpayments: '/Overpayments',
  Prepayments: '/Prepayments',
  PurchaseOrders: '/PurchaseOrders',
  Payments: '/Payments',
  BankTransactions: '/BankTransactions',
  Journals: '/Journals',
  BankSummary: '/Reports/BankSummary',
  RepeatingInvoices: '/RepeatingInvoices',
};

/** What is missing from Cashline's figures without the resource (the ledger alert says it). */
const AFFECTS: Partial<Record<(typeof SYNC_RESOURCES)[number], string>> = {
  Journals: 'account balances (/account-balances) list only the bank accounts and the receivables and payables control accounts, from the documents',
  BankSummary: "the bank accounts' balances as Xero reports them are missing",
  BankTransactions: 'spend and receive money outside invoices is missing from the cash figures',
  Payments: 'payments are missing: invoices and bills show as still open',
  PurchaseOrders: 'purchase orders are missing from the forecast',
  RepeatingInvoices: 'repeating invoices are missing from the forecast',
};

/** A resource left out of a sync: which, the scope that would open it, why, and what it costs. */
export interface UnavailableResource {
  resource: string;
  scope: string;
  reason: 'scope_not_granted' | 'not_permitted';
  affects: string;
}

function unavailableEntry(resource: (typeof SYNC_RESOURCES)[number], reason: UnavailableResource['reason']): UnavailableResource {
  return { resource, scope: scopesFor(RESOURCE_PATHS[resource])[0] ?? '', reason, affects: AFFECTS[resource] ?? `${resource} are missing from the figures` };
}

/** The wanted resources the granted scopes open (all when the scopes are unknown: a connection made before consent), and those they do not. */
function byScope(wanted: readonly (typeof SYNC_RESOURCES)[number][], scopes: string | null) {
  if (!scopes) return { readable: wanted, refused: [] as UnavailableResource[] };
  const granted = new Set(scopes.split(/\s+/));
  const readable = wanted.filter((r) => scopesFor(RESOURCE_PATHS[r]).some((s) => granted.has(s)));
  return { readable, refused: wanted.filter((r) => !readable.includes(r)).map((r) => unavailableEntry(r, 'scope_not_granted')) };
}

/** Why a run does not start: a token to reconnect, or a breaker still cooling down; null when it may run. */
function skipReason(conn: Connection, startedAt: Date, force: boolean | undefined): string | null {
  if (conn.tokenState === 'disconnected') return 'the ledger was disconnected (ledger disconnect): connect it again with `cashline-server ledger connect`';
  if (conn.tokenState !== 'ok') return `the ledger connection needs reconnecting (token ${conn.tokenState})`;
  const open = conn.breakerState === 'open' || conn.breakerState === 'half_open';
  if (open && !force && startedAt.getTime() - (conn.breakerOpenedAt?.getTime() ?? 0) < BREAKER_COOLDOWN_MS) {
    return 'the circuit breaker is open (the ledger kept failing); a trial run follows after the cool-down';
  }
  return null;
}

/** The connection after a run: closed and healthy on success; on failure the error, one more failure, and the breaker tripped when due. */
async function recordOutcome(db: Db, orgId: string, conn: Connection, result: SyncResult, failure: unknown, halfOpen: boolean, at: Date, opts: SyncOptions): Promise<void> {
  if (!failure) {
    await updateConnection(db, orgId, {
      lastSuccessfulSync: at,
      consecutiveFailures: 0,
      breakerState: 'closed',
      breakerOpenedAt: null,
      lastError: null,
      unavailable: result.unavailable,
    });
    return;
  }
  const err = failure;
  const message = err instanceof Error ? err.message : String(err);
  result.outcome = 'failed';
  result.error = message;
  result.errorKind = err instanceof XeroError ? err.kind : err instanceof SealError ? 'sealed' : err instanceof SyncError ? 'data' : err instanceof LedgerWriteError ? 'data' : 'internal';
  const failures = conn.consecutiveFailures + 1;
  const trip = halfOpen || failures >= BREAKER_THRESHOLD;
  await updateConnection(db, orgId, {
    lastErrorAt: at,
    lastError: message.slice(0, 500),
    consecutiveFailures: failures,
    ...(err instanceof XeroError && err.needsReconnect ? { tokenState: err.kind === 'token_expired' ? 'expired' : 'revoked' } : {}),
    // Tokens that a held key does not open (altered, or copied from another organisation) never will: reconnect.
    // A missing or unknown key is the configuration's to fix: the connection stays ok and the runs fail until then.
    ...(err instanceof SealError && (err.reason === 'unreadable' || err.reason === 'malformed') ? { tokenState: 'unreadable' } : {}),
    ...(trip ? { breakerState: 'open', breakerOpenedAt: at } : {}),
  });
  opts.log?.('warn', 'ledger sync failed', { orgId, error: message, kind: result.errorKind });
}

const connectionState = (c: Connection): SyncResult['connection'] => ({
  tokenState: c.tokenState,
  breakerState: c.breakerState,
  consecutiveFailures: c.consecutiveFailures,
  lastSuccessfulSync: c.lastSuccessfulSync?.toISOString() ?? null,
});

/** Runs one sync of the organisation now. Never throws for ledger failures: they are the result (and the connection row). */
export async function syncOrganisation(db: Db, orgId: string, opts: SyncOptions): Promise<SyncResult> {
  const started = performance.now();
  const runId = randomUUID();
  const startedAt = opts.now();
  const org = await orgLedgerInfo(db, orgId);
  if (!org) throw new SyncError(`organisation ${orgId} not found`);
  const conn = await loadConnection(db, orgId);
  if (!conn) throw new SyncError(`organisation ${orgId} has no ledger connection (cashline-server ledger connect)`);

  const result: SyncResult = {
    orgId,
    runId,
    outcome: 'ok',
    records: {},
    unavailable: [],
    pages: 0,
    calls: 0,
    retries: 0,
    refreshes: 0,
    bytes: 0,
    durationMs: 0,
    connection: connectionState(conn),
  };
  const finish = () => {
    result.durationMs = Math.round(performance.now() - started);
    return result;
  };

  const skip = skipReason(conn, startedAt, opts.force);
  if (skip) {
    result.outcome = 'skipped';
    result.error = skip;
    return finish();
  }
  const halfOpen = conn.breakerState === 'open' || conn.breakerState === 'half_open';
  await updateConnection(db, orgId, { lastAttemptAt: startedAt, ...(halfOpen ? { breakerState: 'half_open' } : {}) });

  const client = clientFor(db, orgId, conn, opts);
  const run = new SyncRun(db, orgId, opts, result, client, { orgId, now: startedAt, baseCurrency: org.baseCurrency }, await loadWatermarks(db, orgId));
  try {
    await run.pullOrganisation(conn.tenantId);
    const { readable, refused } = byScope(opts.resources ?? SYNC_RESOURCES, conn.scopes);
    result.unavailable.push(...refused);
    await run.pullAll(readable);
  } catch (err) {
    run.failure = err;
  }
  Object.assign(result, { calls: client.stats.calls, retries: client.stats.retries, refreshes: client.stats.refreshes, bytes: client.stats.bytes });

  const at = opts.now();
  await recordOutcome(db, orgId, conn, result, run.failure, halfOpen, at, opts);
  await insertImportRun(db, {
    orgId,
    id: runId,
    kind: 'sync',
    startedAt,
    finishedAt: at,
    outcome: result.outcome,
    counts: { records: result.records, pages: result.pages, calls: result.calls, retries: result.retries, ...(result.error ? { error: result.error } : {}) },
  });
  const after = await loadConnection(db, orgId);
  if (after) result.connection = connectionState(after);
  return finish();
}

/**
 * Organisations whose connection is due a sync: active, token ok, and either
 * the last attempt at least `everyMs` ago (or never): `slot` null, the
 * cadence's bucket; or a webhook's request for a sync after the last attempt
 * (the safety net of the webhook's own prompt sync, src/jobs/sync-trigger.ts,
 * for a process that died before running it): `slot` names the request, so
 * its claim is not the cadence bucket's, which may already have run.
 */
export async function connectionsDue(db: Db, now: Date, everyMs: number): Promise<{ orgId: string; requested: Date | null }[]> {
  const rowsDue = await usableConnections(db);
  return rowsDue
    .filter((r) => r.breaker === 'closed' || !r.openedAt || now.getTime() - r.openedAt.getTime() >= BREAKER_COOLDOWN_MS)
    .flatMap((r): { orgId: string; requested: Date | null }[] => {
      if (!r.last || now.getTime() - r.last.getTime() >= everyMs) return [{ orgId: r.orgId, requested: null }];
      if (r.requested !== null && r.requested > r.last) return [{ orgId: r.orgId, requested: r.requested }];
      return [];
    })
    .sort((a, b) => (a.orgId < b.orgId ? -1 : a.orgId > b.orgId ? 1 : 0));
}
