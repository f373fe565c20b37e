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
  clientSecret: string;
}

export interface SyncOptions extends LedgerEndpoint {
  /** The service clock (stamps rows and the connection). */
  now: () => Date;
  pageSize?: number;
  /** Client tuning (timeouts, retries, limits). */
  client?: Partial<Omit<XeroClientOptions, 'tokens' | 'tenantId' | keyof LedgerEndpoint>>;
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
  pages: number;
  calls: number;
  retries: number;
  refreshes: number;
  bytes: number;
  durationMs: number;
  connection: { tokenState: string; breakerState: string; consecutiveFailures: number; lastSuccessfulSync: string | null };
}

/** The ledger settings of the configuration (XERO_*), or an error naming what is missing. */
export function ledgerEndpoint(config: {
  XERO_API_URL: string;
  XERO_IDENTITY_URL: string;
  XERO_CLIENT_ID?: string | undefined;
  XERO_CLIENT_SECRET?: string | undefined;
}): LedgerEndpoint {
  if (!config.XERO_CLIENT_ID || !config.XERO_CLIENT_SECRET) throw new SyncError('XERO_CLIENT_ID and XERO_CLIENT_SECRET must be set to sync a ledger');
  return {
    apiUrl: config.XERO_API_URL.replace(/\/+$/, ''),
    identityUrl: config.XERO_IDENTITY_URL.replace(/\/+$/, ''),
    clientId: config.XERO_CLIENT_ID,
    clientSecret: config.XERO_CLIENT_SECRET,
  };
}

/** Creates or replaces an organisation's ledger connection (after the OAuth consent): healthy, never synced. */
export async function connectLedger(
  db: Db,
  input: { orgId: string; tenantId: string; refreshToken: string; accessToken?: string; accessTokenExpiresAt?: Date; now: Date },
): Promise<void> {
  const values = {
    tenantId: input.tenantId,
    refreshToken: input.refreshToken,
    accessToken: input.accessToken ?? null,
    accessTokenExpiresAt: input.accessTokenExpiresAt ?? null,
    tokenState: 'ok',
    breakerState: 'closed',
    breakerOpenedAt: null,
    consecutiveFailures: 0,
    lastError: null,
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
    pages: 0,
    calls: 0,
    retries: 0,
    refreshes: 0,
    bytes: 0,
    durationMs: 0,
    connection: { tokenState: conn.tokenState, breakerState: conn.breakerState, consecutiveFailures: conn.consecutiveFailures, lastSuccessfulSync: conn.lastSuccessfulSync?.toISOString() ?? null },
  };
  const finish = () => {
    result.durationMs = Math.round(performance.now() - started);
    return result;
  };

  if (conn.tokenState !== 'ok') {
    result.outcome = 'skipped';
    result.error = `the ledger connection needs reconnecting (token ${conn.tokenState})`;
    return finish();
  }
  let halfOpen = false;
  if (conn.breakerState === 'open' || conn.breakerState === 'half_open') {
    const openedAt = conn.breakerOpenedAt?.getTime() ?? 0;
    if (!opts.force && startedAt.getTime() - openedAt < BREAKER_COOLDOWN_MS) {
      result.outcome = 'skipped';
      result.error = 'the circuit breaker is open (the ledger kept failing); a trial run follows after the cool-down';
      return finish();
    }
    halfOpen = true;
  }
  await updateConnection(db, orgId, { lastAttemptAt: startedAt, ...(halfOpen ? { breakerState: 'half_open' } : {}) });

  const client = new XeroClient({
    ...opts.client,
    apiUrl: opts.apiUrl,
    identityUrl: opts.identityUrl,
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    tenantId: conn.tenantId,
    tokens: {
      async load() {
        const c = await loadConnection(db, orgId);
        return { accessToken: c?.accessToken ?? null, expiresAt: c?.accessTokenExpiresAt?.getTime() ?? null, refreshToken: c?.refreshToken ?? null };
      },
      async save(t) {
        await updateConnection(db, orgId, { accessToken: t.accessToken, accessTokenExpiresAt: t.expiresAt ? new Date(t.expiresAt) : null, refreshToken: t.refreshToken });
      },
    },
    onRetry: (e) => opts.log?.('warn', 'ledger call retried', { orgId, ...e }),
  });

  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  const ctx: MapContext = { orgId, now: startedAt, baseCurrency: org.baseCurrency };
  let failure: unknown = null;
  const count = (r: SyncResource, n: number) => {
    result.records[r] = (result.records[r] ?? 0) + n;
  };

  const store = async (resource: SyncResource, batch: LedgerBatch, next: { modifiedSince: Date | null; nextPage: number } | null) => {
    await withLedgerLock(db, orgId, async (t) => {
      await writeLedgerBatch(t, orgId, batch);
      if (next) await saveWatermark(t, orgId, resource, next, opts.now());
    });
    result.pages++;
    await opts.heartbeat?.();
  };

  const map = (resource: Resource, body: unknown): { batch: LedgerBatch; records: unknown[] } => {
    try {
      const records = recordsOf(resource, body);
      return { batch: mapPage(resource, body, ctx), records };
    } catch (err) {
      if (err instanceof XeroRecordError) throw new SyncError(`${resource}: ${err.message}`);
      throw err;
    }
  };

  const watermarks = await loadWatermarks(db, orgId);

  const pullPaged = async (resource: Paged) => {
    const wm = watermarks.get(resource);
    let since = wm?.modifiedSince ?? null;
    let page = wm?.nextPage ?? 1;
    let done = 0;
    let total = 0;
    while (!failure) {
      const res = await client.get(`/${resource}`, { page: String(page), pageSize: String(pageSize), order: 'UpdatedDateUTC ASC' }, since);
      const { batch, records } = map(resource, res.body);
      const pagination = (res.body as { pagination?: { itemCount?: number } } | null)?.pagination;
      if (page === 1 && typeof pagination?.itemCount === 'number') total = Math.max(total, done + pagination.itemCount);
      const newest = maxUpdated(records);
      const full = records.length >= pageSize;
      let next: { modifiedSince: Date | null; nextPage: number };
      if (full) next = newest && (!since || newest > since) ? { modifiedSince: newest, nextPage: 1 } : { modifiedSince: since, nextPage: page + 1 };
      else next = { modifiedSince: newest && (!since || newest > since) ? newest : since, nextPage: 1 };
      await store(resource, batch, next);
      count(resource, records.length);
      done += records.length;
      opts.onProgress?.(resource, done, Math.max(total, done));
      since = next.modifiedSince;
      page = next.nextPage;
      if (!full) return;
    }
  };

  const pullJournals = async () => {
    // For Journals, next_page holds the offset: the last JournalNumber stored.
    let offset = watermarks.get('Journals')?.nextPage ?? 0;
    let done = 0;
    while (!failure) {
      const res = await client.get('/Journals', { offset: String(offset) });
      const { batch, records } = map('Journals', res.body);
      let last = offset;
      for (const r of records) {
        const n = Number((r as { JournalNumber?: unknown }).JournalNumber);
        if (Number.isSafeInteger(n) && n > last) last = n;
      }
      await store('Journals', batch, { modifiedSince: null, nextPage: last });
      count('Journals', records.length);
      done += records.length;
      opts.onProgress?.('Journals', done, done);
      if (records.length < 100 || last === offset) return;
      offset = last;
    }
  };

  const pullWhole = async (resource: 'Accounts' | 'BankSummary' | 'RepeatingInvoices') => {
    if (resource === 'RepeatingInvoices') {
      const res = await client.get('/RepeatingInvoices');
      const { batch, records } = map('RepeatingInvoices', res.body);
      await store('RepeatingInvoices', batch, { modifiedSince: opts.now(), nextPage: 1 });
      count('RepeatingInvoices', records.length);
      opts.onProgress?.('RepeatingInvoices', records.length, records.length);
      return;
    }
    if (resource === 'Accounts') {
      const since = watermarks.get('Accounts')?.modifiedSince ?? null;
      const res = await client.get('/Accounts', {}, since);
      const { batch, records } = map('Accounts', res.body);
      const newest = maxUpdated(records);
      await store('Accounts', batch, { modifiedSince: newest && (!since || newest > since) ? newest : since, nextPage: 1 });
      count('Accounts', records.length);
      opts.onProgress?.('Accounts', records.length, records.length);
      return;
    }
    const res = await client.get('/Reports/BankSummary');
    const { batch } = map('BankSummary', res.body);
    await store('BankSummary', batch, { modifiedSince: opts.now(), nextPage: 1 });
    count('BankSummary', batch.bankSummary.balances.length);
    opts.onProgress?.('BankSummary', 1, 1);
  };

  try {
    // The organisation first: the tenant check and the base currency of what follows.
    const res = await client.get('/Organisation');
    const { batch } = map('Organisation', res.body);
    if (batch.organisation && batch.organisation.ledgerTenantId !== conn.tenantId) {
      throw new SyncError(`the ledger answered for tenant ${batch.organisation.ledgerTenantId}, not the connected ${conn.tenantId}`);
    }
    await store('Organisation', batch, null);
    count('Organisation', batch.organisation ? 1 : 0);
    if (batch.organisation?.baseCurrency) ctx.baseCurrency = batch.organisation.baseCurrency;

    const wanted = opts.resources ?? SYNC_RESOURCES;
    const settled = await Promise.allSettled(
      wanted.map(async (r) => {
        try {
          if (r === 'Journals') await pullJournals();
          else if (r === 'Accounts' || r === 'BankSummary' || r === 'RepeatingInvoices') await pullWhole(r);
          else await pullPaged(r);
        } catch (err) {
          failure ??= err;
          throw err;
        }
      }),
    );
    void settled;
    if (failure) throw failure;
  } catch (err) {
    failure = err;
  }
  Object.assign(result, { calls: client.stats.calls, retries: client.stats.retries, refreshes: client.stats.refreshes, bytes: client.stats.bytes });

  const at = opts.now();
  if (!failure) {
    await updateConnection(db, orgId, { lastSuccessfulSync: at, consecutiveFailures: 0, breakerState: 'closed', breakerOpenedAt: null, lastError: null });
  } else {
    const err = failure;
    const message = err instanceof Error ? err.message : String(err);
    result.outcome = 'failed';
    result.error = message;
    result.errorKind = err instanceof XeroError ? err.kind : err instanceof SyncError ? 'data' : err instanceof LedgerWriteError ? 'data' : 'internal';
    const failures = conn.consecutiveFailures + 1;
    const trip = halfOpen || failures >= BREAKER_THRESHOLD;
    await updateConnection(db, orgId, {
        lastErrorAt: at,
        lastError: message.slice(0, 500),
        consecutiveFailures: failures,
        ...(err instanceof XeroError && err.needsReconnect ? { tokenState: err.kind === 'token_expired' ? 'expired' : 'revoked' } : {}),
        ...(trip ? { breakerState: 'open', breakerOpenedAt: at } : {}),
      });
    opts.log?.('warn', 'ledger sync failed', { orgId, error: message, kind: result.errorKind });
  }
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
  if (after) {
    result.connection = {
      tokenState: after.tokenState,
      breakerState: after.breakerState,
      consecutiveFailures: after.consecutiveFailures,
      lastSuccessfulSync: after.lastSuccessfulSync?.toISOString() ?? null,
    };
  }
  return finish();
}

/** Organisations whose connection is due a sync: active, token ok, last attempt at least `everyMs` ago (or never). */
export async function connectionsDue(db: Db, now: Date, everyMs: number): Promise<string[]> {
  const rowsDue = await usableConnections(db);
  return rowsDue
    .filter((r) => !r.last || now.getTime() - r.last.getTime() >= everyMs)
    .filter((r) => r.breaker === 'closed' || !r.openedAt || now.getTime() - r.openedAt.getTime() >= BREAKER_COOLDOWN_MS)
    .map((r) => r.orgId)
    .sort();
}
