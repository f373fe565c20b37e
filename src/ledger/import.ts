/**
 * `cashline-server import --org ID --dir DIR`: reads a folder of Xero
 * Accounting API response bodies into one organisation's ledger tables.
 *
 * DIR holds Organisation.json, Contacts.json, Accounts.json, Invoices.json,
 * CreditNotes.json, Overpayments.json, Prepayments.json, PurchaseOrders.json,
 * Payments.json, BankTransactions.json, BankSummary.json, Journals.json and
 * RepeatingInvoices.json (decisions.md; the last three are additions). Each file holds one
 * response body or an array of page bodies; an absent file means no records
 * of that kind; every other file of the folder is reported as skipped with the
 * reason, and a folder with none of these files is an error. Organisation.json
 * never changes the organisation's base currency silently: another currency
 * is an error unless the caller accepts the ledger's. Every file is read and validated first; then everything is
 * written in one transaction, so a bad record rejects the whole run (an
 * ImportError naming the file, the record and the field) and writes nothing.
 * Re-importing is idempotent and loses nothing (src/store/ledger-write/).
 * docs/import.md has the mapping and the rules.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../store/db.js';
import type { LedgerBatch } from '../store/rows.js';
import { type BatchWritten, writeLedgerBatch } from '../store/ledger-write/batch.js';
import { LedgerWriteError } from '../store/ledger-write/common.js';
import { withLedgerLock } from '../store/ledger-write/lock.js';
import { insertImportRun, orgLedgerInfo } from '../store/queries/connections.js';
import { JsonSyntaxError, parseXeroJson } from './xero/json.js';
import { emptyBatch, mapPage, RESOURCES, recordsOf, type Resource, XeroRecordError } from './map/page.js';
import type { MapContext } from './map/shared.js';

export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

export interface ImportProgress {
  /** A resource (Contacts, Accounts, CashItems = invoices, bills and credit notes, …) or 'read:<File>.json'. */
  resource: string;
  done: number;
  total: number;
}

export interface ImportOptions {
  /** The clock: stamped as last_synced_at and on the run. */
  now: Date;
  onProgress?: (e: ImportProgress) => void;
  /**
   * Organisation.json names another base currency than the organisation's:
   * take the ledger's (true) or refuse the import (default), never silently.
   */
  acceptLedgerCurrency?: boolean;
}

/** A file of the folder the import did not read, and why. */
export interface SkippedFile {
  file: string;
  reason: string;
}

/**
 * Xero Accounting resources this import does not read (yet): a file named
 * after one is reported as skipped with this reason, not silently passed over.
 */
const NOT_READ: Record<string, string> = {
  'ManualJournals.json': 'manual journals are read through Journals.json',
  'Items.json': 'items are not used',
  'TaxRates.json': 'tax rates are not used',
  'TrackingCategories.json': 'tracking categories are not used',
  'Currencies.json': 'currencies are not used (each document carries its own rate)',
  'Users.json': 'users are not used',
  'BrandingThemes.json': 'branding themes are not used',
  'Quotes.json': 'quotes are not used',
  'BatchPayments.json': 'batch payments are read through Payments.json',
  'BankTransfers.json': 'transfers are read through BankTransactions.json',
};

export interface ImportSummary {
  runId: string;
  orgId: string;
  /** The files found and read, in reading order. */
  files: string[];
  /**
   * Records read per resource (Organisation: 0 or 1; BankSummary: account
   * rows; Journals: journals; JournalLines: their lines).
   */
  counts: Record<Resource | 'JournalLines', number>;
  /** Rows inserted or updated per table (rows kept because the store held a newer version are not counted). */
  written: BatchWritten;
  /** Files of the folder not read, and why (unknown names, empty files, resources not imported, other kinds of file). */
  skipped: SkippedFile[];
  /** Set when the import changed the organisation's base currency (with acceptLedgerCurrency). */
  baseCurrencyChanged?: { from: string; to: string };
}

/** The files an import reads: one per resource. */
const WANTED: ReadonlySet<string> = new Set(RESOURCES.map((r) => `${r}.json`));

/** Why a file of the folder is not read. */
function skipReason(name: string, isFile: boolean): string {
  if (!isFile) return 'not a file';
  if (NOT_READ[name]) return NOT_READ[name]!;
  if (!name.endsWith('.json')) return 'not a .json file';
  return `not a resource this import reads (it reads ${[...WANTED].join(', ')})`;
}

/** The files of the folder this import does not read, and why. */
async function skippedEntries(dir: string): Promise<SkippedFile[]> {
  const skipped: SkippedFile[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!WANTED.has(entry.name)) skipped.push({ file: entry.name, reason: skipReason(entry.name, entry.isFile()) });
  }
  return skipped;
}

/** A resource's file as text: null when absent; a file that exists but cannot be read is an ImportError. */
async function readResourceFile(path: string, file: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ImportError(`${file}: cannot be read: ${(err as Error).message}`);
  }
}

/** Validates and maps one file's pages into the batch, counting its records. */
function mapFile(resource: Resource, file: string, text: string, ctx: MapContext, batch: LedgerBatch, counts: ImportSummary['counts']): void {
  let parsed: unknown;
  try {
    parsed = parseXeroJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new ImportError(`${file}: not valid JSON: ${err.message}`);
    throw err;
  }
  const pages = Array.isArray(parsed) ? parsed : [parsed];
  const paged = Array.isArray(parsed);
  const journalLinesBefore = batch.journalLines.length;
  const balancesBefore = batch.bankSummary.balances.length;
  for (let p = 0; p < pages.length; p++) {
    const where = paged ? `${file}: page ${p}: ` : `${file}: `;
    try {
      const n = recordsOf(resource, pages[p]).length;
      mapPage(resource, pages[p], ctx, batch);
      if (resource !== 'BankSummary') counts[resource] += n;
    } catch (err) {
      if (err instanceof XeroRecordError) throw new ImportError(`${where}${err.message}`);
      throw err;
    }
    if (resource === 'Organisation' && batch.organisation?.baseCurrency) {
      ctx.baseCurrency = batch.organisation.baseCurrency;
    }
  }
  if (resource === 'Organisation') counts.Organisation = batch.organisation ? 1 : 0;
  if (resource === 'BankSummary') counts.BankSummary = batch.bankSummary.balances.length - balancesBefore;
  if (resource === 'Journals') counts.JournalLines = batch.journalLines.length - journalLinesBefore;
}

/**
 * The organisation's base currency against the ledger's: a mismatch fails
 * unless accepted (then it is the change to make); the same currency is
 * nothing to change. Also refuses another ledger than the linked one.
 */
function checkLedger(batch: LedgerBatch, org: { baseCurrency: string; ledgerTenantId: string | null }, accept: boolean | undefined): ImportSummary['baseCurrencyChanged'] {
  let baseCurrencyChanged: ImportSummary['baseCurrencyChanged'];
  const ledgerCurrency = batch.organisation?.baseCurrency;
  if (ledgerCurrency && ledgerCurrency !== org.baseCurrency) {
    if (!accept) {
      throw new ImportError(
        `Organisation.json: the ledger's base currency is ${ledgerCurrency}, the organisation's is ${org.baseCurrency}; ` +
          `nothing was imported. Pass --accept-ledger-currency to make ${ledgerCurrency} the organisation's base currency.`,
      );
    }
    baseCurrencyChanged = { from: org.baseCurrency, to: ledgerCurrency };
  } else if (batch.organisation) {
    // The same currency: nothing to change.
    delete batch.organisation.baseCurrency;
  }

  if (batch.organisation && org.ledgerTenantId && batch.organisation.ledgerTenantId !== org.ledgerTenantId) {
    throw new ImportError(
      `Organisation.json: OrganisationID ${batch.organisation.ledgerTenantId} is not the ledger this organisation is linked to (${org.ledgerTenantId})`,
    );
  }
  return baseCurrencyChanged;
}

/** Imports a folder of Xero response bodies (the module's comment says how). */
export async function importDirectory(db: Db, orgId: string, dir: string, opts: ImportOptions): Promise<ImportSummary> {
  const isDir = await stat(dir).then(
    (st) => st.isDirectory(),
    () => false,
  );
  if (!isDir) throw new ImportError(`${dir}: not a directory`);
  const skipped = await skippedEntries(dir);
  return importSource(db, orgId, { where: dir, skipped, read: (file) => readResourceFile(join(dir, file), file) }, opts);
}

/**
 * Imports Xero response bodies held in memory, by file name (what a folder
 * would hold: the demo generator's, a converted data set), exactly as the
 * folder of those files would be imported; the run records `where` as its folder.
 */
export async function importFiles(db: Db, orgId: string, files: Readonly<Record<string, unknown>>, opts: ImportOptions & { where?: string }): Promise<ImportSummary> {
  const names = Object.keys(files).sort((a, b) => (a < b ? -1 : 1));
  const skipped = names.filter((n) => !WANTED.has(n)).map((file) => ({ file, reason: skipReason(file, true) }));
  const read = async (file: string) => (Object.hasOwn(files, file) ? JSON.stringify(files[file]) : null);
  return importSource(db, orgId, { where: opts.where ?? '(in memory)', skipped, read }, opts);
}

/** Where an import's files come from: a folder's name, what it holds that is not read, and a resource file's text (null when absent). */
interface ImportSource {
  where: string;
  skipped: SkippedFile[];
  read: (file: string) => Promise<string | null>;
}

async function importSource(db: Db, orgId: string, source: ImportSource, opts: ImportOptions): Promise<ImportSummary> {
  const started = Date.now();
  const { where: dir, skipped } = source;
  const org = await orgLedgerInfo(db, orgId);
  if (!org) throw new ImportError(`organisation ${orgId} not found`);

  // 1. Read and validate everything; say what is not read, and why.
  const batch = emptyBatch();
  const files: string[] = [];
  const counts = Object.fromEntries([...RESOURCES, 'JournalLines'].map((r) => [r, 0])) as ImportSummary['counts'];
  const ctx = { orgId, now: opts.now, baseCurrency: org.baseCurrency };
  for (const resource of RESOURCES) {
    const file = `${resource}.json`;
    const text = await source.read(file);
    if (text === null) continue;
    if (text.trim() === '' || text.trim() === '\ufeff') {
      skipped.push({ file, reason: 'empty file' });
      continue;
    }
    files.push(file);
    mapFile(resource, file, text, ctx, batch, counts);
    opts.onProgress?.({ resource: `read:${file}`, done: 1, total: 1 });
  }

  if (files.length === 0) {
    throw new ImportError(
      `${dir}: no Xero file to import: looked for ${[...WANTED].join(', ')}` +
        (skipped.length ? `; found only ${skipped.map((f) => f.file).join(', ')}` : '; the folder is empty'),
    );
  }
  const baseCurrencyChanged = checkLedger(batch, org, opts.acceptLedgerCurrency);

  // 2. Write everything in one transaction.
  const runId = randomUUID();
  let written: BatchWritten;
  try {
    // One writer per organisation at a time (imports and syncs).
    written = await withLedgerLock(db, orgId, async (t) => {
      const w = await writeLedgerBatch(t, orgId, batch, (resource, done, total) =>
        opts.onProgress?.({ resource, done, total }),
      );
      await insertImportRun(t, {
        orgId,
        id: runId,
        kind: 'import',
        startedAt: opts.now,
        finishedAt: opts.now,
        outcome: 'ok',
        counts: { dir, files, records: counts, written: w, skipped, ...(baseCurrencyChanged ? { baseCurrencyChanged } : {}), durationMs: Date.now() - started },
      });
      return w;
    });
  } catch (err) {
    if (err instanceof LedgerWriteError) throw new ImportError(err.message);
    throw err;
  }
  return { runId, orgId, files, counts, written, skipped, ...(baseCurrencyChanged ? { baseCurrencyChanged } : {}) };
}
