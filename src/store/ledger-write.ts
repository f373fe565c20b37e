/**
 * Batched writes of mapped ledger rows (src/ledger/map.ts) for one
 * organisation. The importer calls them inside its one transaction; the live
 * sync calls them page by page. Each function takes a `Db` (usually a
 * transaction) and an already-mapped batch.
 *
 * How rows are written:
 * - Multi-row `INSERT … SELECT … FROM unnest($col1::text[], …) … ON CONFLICT
 *   (org_id, …) DO UPDATE`, a few hundred to a few thousand rows per
 *   statement: the rows travel as one text array per column (money as
 *   decimal strings, exact; cast in SQL) and every statement is keyed by
 *   org_id.
 * - Never lost: nothing is ever deleted except an upserted item's own lines
 *   (and a credit note's own allocations) when the new record carries them.
 * - A NULL never overwrites a stored value (`coalesce(new, old)`), and a NOT
 *   NULL column the source does not carry (`undefined` in the row) keeps its
 *   stored value; on insert it gets its default.
 * - A record older than the stored one (by the ledger's UpdatedDateUTC) does
 *   not overwrite it.
 * - Operator-owned columns (contacts/accounts.is_sensitive, purchase
 *   orders' suppressed_reason) are never written here.
 * - Rows known only from a reference (a contact named by an invoice, a bank
 *   account named by a transaction or the bank summary) are inserted when
 *   missing and never overwrite a stored row.
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { type Db, rows as queryRows } from './db.js';
import * as s from './schema.js';
import type {
  AccountRow,
  AllocationRow,
  AppliedCreditRow,
  BankBalanceRow,
  BankTransactionRow,
  CashItemLineRow,
  ContactRow,
  EmbeddedPaymentRow,
  JournalLineRow,
  LedgerBatch,
  LedgerRows,
  MappedCashItem,
  MappedPurchaseOrder,
  OrganisationUpdate,
  PaymentRow,
  PurchaseOrderLineRow,
  RepeatingInvoiceRow,
} from './rows.js';

export class LedgerWriteError extends Error {}

type UpdateMode = 'set' | 'coalesce' | 'keep';

interface UpsertSpec {
  table: PgTable;
  /** Conflict target after org_id, as property names of the table. */
  key: readonly string[];
  /** Update mode per property; default: nullable columns coalesce, NOT NULL ones set. */
  modes?: Readonly<Record<string, UpdateMode>>;
  /** Properties never written (operator-owned or derived elsewhere). */
  omit?: readonly string[];
  /** SQL defaults for NOT NULL columns a row may not carry. */
  insertDefaults?: Readonly<Record<string, string>>;
  /** Newer-wins guard: the row is not updated when the stored value of this property is later. */
  guard?: string;
  /** 'nothing': reference rows, inserted only when missing. */
  onConflict?: 'update' | 'nothing';
  /** Rows per statement. */
  chunk: number;
}

interface ColInfo {
  prop: string;
  name: string;
  type: string;
  notNull: boolean;
}

const columnCache = new WeakMap<PgTable, { name: string; cols: ColInfo[] }>();

function tableInfo(table: PgTable): { name: string; cols: ColInfo[] } {
  let info = columnCache.get(table);
  if (!info) {
    const cols = Object.entries(getTableColumns(table) as Record<string, PgColumn>).map(([prop, c]) => ({
      prop,
      name: c.name,
      type: c.getSQLType(),
      notNull: c.notNull,
    }));
    info = { name: getTableConfig(table).name, cols };
    columnCache.set(table, info);
  }
  return info;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A value as the text PostgreSQL reads for its column (cast in SQL); null stays null. */
function textValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v); // jsonb
}

/**
 * The rows as one text[] per column (undefined reads as NULL): the statement
 * zips them with unnest(), which is the cheapest way into both engines
 * (PGlite in particular: half the cost of json_to_recordset).
 */
function columnArrays(rows: ReadonlyArray<Record<string, unknown>>, cols: readonly ColInfo[]): SQL[] {
  return cols.map((c) => {
    const arr = new Array<string | null>(rows.length);
    for (let i = 0; i < rows.length; i++) arr[i] = textValue(rows[i]![c.prop]);
    return sql`${sql.param(arr)}::text[]`;
  });
}

/** `unnest($a::text[], $b::text[], …) as u("c1", "c2", …)` over the rows. */
function unnestFrom(rows: ReadonlyArray<Record<string, unknown>>, cols: readonly ColInfo[]): SQL {
  return sql.join([
    sql.raw('unnest('),
    sql.join(columnArrays(rows, cols), sql.raw(', ')),
    sql.raw(`) as u(${cols.map((c) => ident(c.name)).join(', ')})`),
  ]);
}

/** The column's value in the unnest, cast to its type. */
const fromU = (c: ColInfo) => `u.${ident(c.name)}::${c.type}`;

function checkOrg(orgId: string, rows: ReadonlyArray<{ orgId: string }>, what: string): void {
  for (const r of rows) {
    if (r.orgId !== orgId) throw new LedgerWriteError(`${what}: a row of organisation ${r.orgId} in a write for ${orgId}`);
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Merges rows with the same key (last wins, field by field: a later
 * undefined, or a later null in a coalescing column, keeps the earlier value),
 * after ordering them by the guard column so the newest version wins.
 */
function dedupe<T extends Record<string, unknown>>(rows: readonly T[], spec: UpsertSpec, cols: readonly ColInfo[]): T[] {
  const keyOf = (r: T) => spec.key.map((k) => String(r[k])).join('\u0001');
  const byKey = new Map<string, T[]>();
  let dup = false;
  for (const r of rows) {
    const k = keyOf(r);
    const list = byKey.get(k);
    if (list) {
      list.push(r);
      dup = true;
    } else byKey.set(k, [r]);
  }
  if (!dup) return rows.slice();
  const out: T[] = [];
  for (const list of byKey.values()) {
    if (list.length === 1) {
      out.push(list[0]!);
      continue;
    }
    const ordered = spec.guard
      ? list
          .map((r, i) => ({ r, i, t: r[spec.guard!] instanceof Date ? (r[spec.guard!] as Date).getTime() : -Infinity }))
          .sort((a, b) => a.t - b.t || a.i - b.i)
          .map((x) => x.r)
      : list;
    const merged: Record<string, unknown> = { ...ordered[0]! };
    for (const r of ordered.slice(1)) {
      for (const c of cols) {
        const v = r[c.prop];
        if (v === undefined) continue;
        const mode = spec.modes?.[c.prop] ?? (c.notNull ? 'set' : 'coalesce');
        if (v === null && mode === 'coalesce') continue;
        merged[c.prop] = v;
      }
    }
    out.push(merged as T);
  }
  return out;
}

/**
 * The generic upsert. Returns the keys (joined by \u0001) of the rows that
 * were inserted or updated (not those skipped by the guard or kept as stored).
 */
async function upsert<T extends { orgId: string }>(
  db: Db,
  orgId: string,
  spec: UpsertSpec,
  input: readonly T[],
  what: string,
): Promise<Set<string>> {
  const written = new Set<string>();
  if (input.length === 0) return written;
  checkOrg(orgId, input, what);
  const { name: table, cols: allCols } = tableInfo(spec.table);
  const omit = new Set(['orgId', ...(spec.omit ?? [])]);
  const cols = allCols.filter((c) => !omit.has(c.prop));
  const keyCols = spec.key.map((k) => {
    const c = allCols.find((x) => x.prop === k);
    if (!c) throw new LedgerWriteError(`${table}: no column ${k}`);
    return c;
  });
  const keySet = new Set(spec.key);
  const modeOf = (c: ColInfo): UpdateMode => spec.modes?.[c.prop] ?? (c.notNull ? 'set' : 'coalesce');
  // NOT NULL columns a row may leave undefined ("not carried"): rows are grouped by which ones.
  const maskable = cols.filter((c) => c.notNull && !keySet.has(c.prop) && modeOf(c) !== 'keep');
  const rows = dedupe(input as unknown as Array<Record<string, unknown>>, spec, allCols);
  const groups = new Map<string, Array<Record<string, unknown>>>();
  for (const r of rows) {
    let mask = '';
    for (const c of maskable) mask += r[c.prop] === undefined ? '0' : '1';
    const g = groups.get(mask);
    if (g) g.push(r);
    else groups.set(mask, [r]);
  }
  const orgCol = allCols.find((c) => c.prop === 'orgId')!;
  const t = ident(table);
  for (const [mask, groupRows] of groups) {
    const missing = new Set(maskable.filter((_, i) => mask[i] === '0').map((c) => c.prop));
    const insertExprs = cols.map((c) => {
      const d = spec.insertDefaults?.[c.prop];
      return d !== undefined ? `coalesce(${fromU(c)}, ${d})` : fromU(c);
    });
    for (const c of cols) {
      if (missing.has(c.prop) && spec.insertDefaults?.[c.prop] === undefined) {
        throw new LedgerWriteError(`${table}.${c.name}: required`);
      }
    }
    const conflictTarget = [orgCol, ...keyCols].map((c) => ident(c.name)).join(', ');
    let onConflict: string;
    if (spec.onConflict === 'nothing') {
      onConflict = `on conflict (${conflictTarget}) do nothing`;
    } else {
      const sets = cols
        .filter((c) => !keySet.has(c.prop) && !missing.has(c.prop) && modeOf(c) !== 'keep')
        .map((c) =>
          modeOf(c) === 'coalesce'
            ? `${ident(c.name)} = coalesce(excluded.${ident(c.name)}, ${t}.${ident(c.name)})`
            : `${ident(c.name)} = excluded.${ident(c.name)}`,
        );
      const g = spec.guard ? allCols.find((c) => c.prop === spec.guard)! : undefined;
      const where = g
        ? ` where excluded.${ident(g.name)} is null or ${t}.${ident(g.name)} is null or excluded.${ident(g.name)} >= ${t}.${ident(g.name)}`
        : '';
      onConflict = sets.length
        ? `on conflict (${conflictTarget}) do update set ${sets.join(', ')}${where}`
        : `on conflict (${conflictTarget}) do nothing`;
    }
    const head = `insert into ${t} (${[orgCol, ...cols].map((c) => ident(c.name)).join(', ')}) select `;
    const select = `, ${insertExprs.join(', ')} from `;
    const end = ` where true ${onConflict} returning ${keyCols.map((c) => ident(c.name)).join(', ')}`;
    for (const part of chunks(groupRows, spec.chunk)) {
      const query: SQL = sql.join([sql.raw(head), sql`${orgId}`, sql.raw(select), unnestFrom(part, cols), sql.raw(end)]);
      const res = await queryRows<Record<string, unknown>>(db, query);
      for (const r of res) written.add(keyCols.map((c) => String(r[c.name])).join('\u0001'));
    }
  }
  return written;
}

/** Plain multi-row insert (rows whose parents were just cleared). */
async function insertRows<T extends { orgId: string }>(db: Db, orgId: string, table: PgTable, input: readonly T[], chunk: number, what: string): Promise<number> {
  if (input.length === 0) return 0;
  checkOrg(orgId, input, what);
  const { name, cols: allCols } = tableInfo(table);
  const cols = allCols.filter((c) => c.prop !== 'orgId');
  const orgCol = allCols.find((c) => c.prop === 'orgId')!;
  const head = `insert into ${ident(name)} (${[orgCol, ...cols].map((c) => ident(c.name)).join(', ')}) select `;
  const select = `, ${cols.map(fromU).join(', ')} from `;
  for (const part of chunks(input as unknown as Array<Record<string, unknown>>, chunk)) {
    await db.execute(sql.join([sql.raw(head), sql`${orgId}`, sql.raw(select), unnestFrom(part, cols)]));
  }
  return input.length;
}

/** Deletes the children of the given parents (lines of items, allocations of credit notes). */
async function deleteChildren(db: Db, orgId: string, table: PgTable, parentProp: string, parentIds: readonly string[]): Promise<void> {
  if (parentIds.length === 0) return;
  const { name, cols } = tableInfo(table);
  const parent = cols.find((c) => c.prop === parentProp)!;
  for (const part of chunks(parentIds, 5000)) {
    await db.execute(
      sql.join([
        sql.raw(`delete from ${ident(name)} where "org_id" = `),
        sql`${orgId}`,
        sql.raw(` and ${ident(parent.name)} = any(`),
        sql`${sql.param(part)}::text[]`,
        sql.raw(`)`),
      ]),
    );
  }
}

// ---------------------------------------------------------------------------
// Table specs
// ---------------------------------------------------------------------------

const CONTACTS: UpsertSpec = {
  table: s.contacts,
  key: ['id'],
  omit: ['isSensitive'],
  insertDefaults: { contactStatus: `'ACTIVE'`, isCustomer: 'false', isSupplier: 'false' },
  guard: 'ledgerUpdatedAt',
  chunk: 1000,
};
const CONTACT_REFS: UpsertSpec = { ...CONTACTS, onConflict: 'nothing' };

const ACCOUNTS: UpsertSpec = {
  table: s.accounts,
  key: ['id'],
  omit: ['isSensitive'],
  insertDefaults: { status: `'ACTIVE'` },
  guard: 'ledgerUpdatedAt',
  chunk: 1000,
};
const ACCOUNT_REFS: UpsertSpec = { ...ACCOUNTS, onConflict: 'nothing' };

const BANK_BALANCES: UpsertSpec = {
  table: s.bankBalances,
  key: ['accountId'],
  guard: 'balanceSyncedAt',
  chunk: 1000,
};

const CASH_ITEMS: UpsertSpec = {
  table: s.cashItems,
  key: ['id'],
  // A record without FullyPaidOnDate is not (or no longer) fully paid.
  modes: { paidDate: 'set' },
  guard: 'ledgerUpdatedAt',
  // Items are written (with their lines) this many at a time.
  chunk: 1000,
};

const PAYMENTS: UpsertSpec = {
  table: s.payments,
  key: ['id'],
  insertDefaults: { status: `'AUTHORISED'`, isReconciled: 'false' },
  guard: 'ledgerUpdatedAt',
  chunk: 1000,
};

const PURCHASE_ORDERS: UpsertSpec = {
  table: s.purchaseOrders,
  key: ['id'],
  omit: ['suppressedReason'],
  insertDefaults: { reference: `''` },
  guard: 'ledgerUpdatedAt',
  chunk: 500,
};

const BANK_TRANSACTIONS: UpsertSpec = {
  table: s.bankTransactions,
  key: ['id'],
  insertDefaults: { isReconciled: 'false', lines: `'[]'::jsonb` },
  guard: 'ledgerUpdatedAt',
  chunk: 1000,
};

const JOURNAL_LINES: UpsertSpec = {
  table: s.journalLines,
  key: ['journalId', 'id'],
  chunk: 10_000,
};

// The ledger answers a schedule whole: every column is its current value (a removed end date is null).
const REPEATING_INVOICES: UpsertSpec = {
  table: s.repeatingInvoices,
  key: ['id'],
  modes: { contactId: 'set', reference: 'set', startDate: 'set', endDate: 'set', nextScheduledDate: 'set', lineAmountTypes: 'set', accountCode: 'set' },
  chunk: 1000,
};

const LINE_CHUNK = 20_000;

// ---------------------------------------------------------------------------
// Public writers
// ---------------------------------------------------------------------------

/** Contacts from GET /Contacts. is_sensitive is never touched. Returns how many were written. */
export async function upsertContacts(db: Db, orgId: string, rows: readonly ContactRow[]): Promise<number> {
  return (await upsert(db, orgId, CONTACTS, rows, 'contacts')).size;
}

/** Contacts known only from a reference (id and name): inserted when missing, never updated. */
export async function insertContactRefs(db: Db, orgId: string, rows: readonly ContactRow[]): Promise<number> {
  return (await upsert(db, orgId, CONTACT_REFS, mergeRoles(rows), 'contact refs')).size;
}

/** Accounts from GET /Accounts. is_sensitive is never touched. */
export async function upsertAccounts(db: Db, orgId: string, rows: readonly AccountRow[]): Promise<number> {
  return (await upsert(db, orgId, ACCOUNTS, rows, 'accounts')).size;
}

/** Accounts known only from a reference: inserted when missing, never updated. */
export async function insertAccountRefs(db: Db, orgId: string, rows: readonly AccountRow[]): Promise<number> {
  return (await upsert(db, orgId, ACCOUNT_REFS, rows, 'account refs')).size;
}

/** Bank balances from Reports/BankSummary; a stored statement_balance is kept when the row has none. */
export async function upsertBankBalances(db: Db, orgId: string, rows: readonly BankBalanceRow[]): Promise<number> {
  return (await upsert(db, orgId, BANK_BALANCES, rows, 'bank balances')).size;
}

/**
 * Payments. Rows from GET /Payments carry everything; rows embedded in
 * invoices (EmbeddedPaymentRow) leave status and reconciliation undefined and
 * often have no bank account: those stored values are kept.
 */
export async function upsertPayments(db: Db, orgId: string, rows: ReadonlyArray<PaymentRow | EmbeddedPaymentRow>): Promise<number> {
  return (await upsert(db, orgId, PAYMENTS, rows, 'payments')).size;
}

export interface WriteProgress {
  (resource: string, done: number, total: number): void;
}

export interface CashItemsWritten {
  items: number;
  lines: number;
  payments: number;
  allocations: number;
}

/**
 * Invoices, bills and credit notes with what they carry: an upserted item's
 * lines are replaced when the record carries lines; a credit note's
 * allocations are replaced when it carries them; embedded payments are merged
 * (upsertPayments) and credits applied to invoices are added to the notes'
 * allocations unless already there. An item older than the stored one is
 * left alone, with all it carries.
 */
export async function upsertCashItems(
  db: Db,
  orgId: string,
  items: readonly MappedCashItem[],
  onProgress?: (done: number, total: number) => void,
): Promise<CashItemsWritten> {
  const out: CashItemsWritten = { items: 0, lines: 0, payments: 0, allocations: 0 };
  checkOrg(orgId, items.map((i) => i.item), 'cash items');
  const unique = newestById(items, (m) => m.item.id, (m) => m.item.ledgerUpdatedAt);
  let done = 0;
  for (const part of chunks(unique, CASH_ITEMS.chunk)) {
    const written = await upsert(db, orgId, CASH_ITEMS, part.map((m) => m.item), 'cash items');
    out.items += written.size;
    const mine = part.filter((m) => written.has(m.item.id));
    const withLines = mine.filter((m) => m.lines !== null);
    if (withLines.length) {
      await deleteChildren(db, orgId, s.cashItemLines, 'itemId', withLines.map((m) => m.item.id));
      // In key order: the primary key's b-tree fills page by page.
      withLines.sort((a, b) => (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0));
      const lines: CashItemLineRow[] = withLines.flatMap((m) => m.lines!);
      out.lines += await insertRows(db, orgId, s.cashItemLines, lines, LINE_CHUNK, 'cash item lines');
    }
    const withAllocations = mine.filter((m) => m.allocations !== null);
    if (withAllocations.length) {
      await deleteChildren(db, orgId, s.creditNoteAllocations, 'creditNoteId', withAllocations.map((m) => m.item.id));
      const allocations: AllocationRow[] = withAllocations.flatMap((m) => m.allocations!);
      out.allocations += await insertRows(db, orgId, s.creditNoteAllocations, allocations, LINE_CHUNK, 'allocations');
    }
    out.allocations += await mergeAppliedCredits(db, orgId, mine.flatMap((m) => m.appliedCredits));
    out.payments += await upsertPayments(db, orgId, mine.flatMap((m) => m.payments));
    done += part.length;
    onProgress?.(done, unique.length);
  }
  return out;
}

/**
 * Credits applied to invoices, seen from the invoices: added to the credit
 * note's allocations (after its last seq) unless an allocation of the same
 * amount to the same invoice is already stored. (The date is not compared:
 * an invoice may report the note's date rather than the allocation's.) The
 * note's own Allocations, when imported, replace these.
 */
export async function mergeAppliedCredits(db: Db, orgId: string, rows: readonly AppliedCreditRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  checkOrg(orgId, rows, 'applied credits');
  let n = 0;
  for (const part of chunks(rows, LINE_CHUNK)) {
    const json = JSON.stringify(
      part.map((r, i) => ({
        ord: i,
        credit_note_id: r.creditNoteId,
        invoice_id: r.invoiceId ?? null,
        invoice_number: r.invoiceNumber ?? null,
        amount: r.amount,
        date: r.date ?? null,
      })),
    );
    const res = await queryRows<{ n: number }>(
      db,
      sql`with ins as (
        insert into credit_note_allocations (org_id, credit_note_id, seq, invoice_id, invoice_number, amount, date)
        select ${orgId}, x.credit_note_id,
          coalesce((select max(a.seq) from credit_note_allocations a where a.org_id = ${orgId} and a.credit_note_id = x.credit_note_id), -1)
            + row_number() over (partition by x.credit_note_id order by x.ord),
          x.invoice_id, x.invoice_number, x.amount, x.date
        from json_to_recordset(${json}::json) as x(ord int, credit_note_id text, invoice_id text, invoice_number text, amount numeric, date date)
        where not exists (
          select 1 from credit_note_allocations a
          where a.org_id = ${orgId} and a.credit_note_id = x.credit_note_id
            and a.invoice_id is not distinct from x.invoice_id and a.amount = x.amount)
        returning 1)
      select count(*)::int as n from ins`,
    );
    n += Number(res[0]?.n ?? 0);
  }
  return n;
}

/** Purchase orders; an upserted order's lines are replaced when the record carries lines. */
export async function upsertPurchaseOrders(
  db: Db,
  orgId: string,
  orders: readonly MappedPurchaseOrder[],
  onProgress?: (done: number, total: number) => void,
): Promise<{ orders: number; lines: number }> {
  const out = { orders: 0, lines: 0 };
  checkOrg(orgId, orders.map((o) => o.order), 'purchase orders');
  const unique = newestById(orders, (m) => m.order.id, (m) => m.order.ledgerUpdatedAt);
  let done = 0;
  for (const part of chunks(unique, PURCHASE_ORDERS.chunk)) {
    const written = await upsert(db, orgId, PURCHASE_ORDERS, part.map((m) => m.order), 'purchase orders');
    out.orders += written.size;
    const withLines = part.filter((m) => written.has(m.order.id) && m.lines !== null);
    if (withLines.length) {
      await deleteChildren(db, orgId, s.purchaseOrderLines, 'purchaseOrderId', withLines.map((m) => m.order.id));
      const lines: PurchaseOrderLineRow[] = withLines.flatMap((m) => m.lines!);
      out.lines += await insertRows(db, orgId, s.purchaseOrderLines, lines, LINE_CHUNK, 'purchase order lines');
    }
    done += part.length;
    onProgress?.(done, unique.length);
  }
  return out;
}

/** Bank transactions; their lines are kept when a record carries none. */
export async function upsertBankTransactions(db: Db, orgId: string, rows: readonly BankTransactionRow[]): Promise<number> {
  return (await upsert(db, orgId, BANK_TRANSACTIONS, rows, 'bank transactions')).size;
}

/**
 * Replaces the organisation's repeating invoices and bills with `rows` (the
 * ledger's whole list): new and changed schedules are written, the ones the
 * ledger no longer lists are deleted. Returns rows written plus deleted.
 */
export async function replaceRepeatingInvoices(db: Db, orgId: string, rows: readonly RepeatingInvoiceRow[]): Promise<number> {
  checkOrg(orgId, rows, 'repeating invoices');
  const gone = await queryRows<{ id: string }>(
    db,
    sql`delete from repeating_invoices
        where org_id = ${orgId} and id not in (select json_array_elements_text(${JSON.stringify(rows.map((r) => r.id))}::json))
        returning id`,
  );
  const deleted = gone.length;
  return deleted + (await upsert(db, orgId, REPEATING_INVOICES, rows, 'repeating invoices')).size;
}

/** Journal lines (journals are immutable in Xero: a re-import rewrites the same values). */
export async function upsertJournalLines(db: Db, orgId: string, rows: readonly JournalLineRow[]): Promise<number> {
  return (await upsert(db, orgId, JOURNAL_LINES, rows, 'journal lines')).size;
}

/**
 * Applies what the ledger says about the organisation: its ledger tenant,
 * base currency, financial year end and (when known) time zone. Refuses a
 * ledger other than the one the organisation is already linked to.
 */
export async function applyOrganisationUpdate(db: Db, orgId: string, u: OrganisationUpdate): Promise<void> {
  if (u.orgId !== orgId) throw new LedgerWriteError(`organisation: an update for ${u.orgId} in a write for ${orgId}`);
  const [org] = await db
    .select({ id: s.organisations.id, ledgerTenantId: s.organisations.ledgerTenantId })
    .from(s.organisations)
    .where(sql`${s.organisations.id} = ${orgId}`);
  if (!org) throw new LedgerWriteError(`organisation ${orgId} not found`);
  if (org.ledgerTenantId && org.ledgerTenantId !== u.ledgerTenantId) {
    throw new LedgerWriteError(
      `organisation ${orgId} is linked to ledger ${org.ledgerTenantId}, not to ${u.ledgerTenantId} (OrganisationID)`,
    );
  }
  const set: Partial<typeof s.organisations.$inferInsert> = { ledgerTenantId: u.ledgerTenantId };
  if (u.baseCurrency !== undefined) set.baseCurrency = u.baseCurrency;
  if (u.fyEndDay !== undefined && u.fyEndMonth !== undefined) {
    set.fyEndDay = u.fyEndDay;
    set.fyEndMonth = u.fyEndMonth;
  }
  if (u.timezone !== undefined) set.timezone = u.timezone;
  await db.update(s.organisations).set(set).where(sql`${s.organisations.id} = ${orgId}`);
}

export interface BatchWritten {
  organisation: number;
  contacts: number;
  accounts: number;
  cashItems: number;
  lineItems: number;
  allocations: number;
  purchaseOrders: number;
  purchaseOrderLines: number;
  payments: number;
  bankTransactions: number;
  bankBalances: number;
  journalLines: number;
  repeatingInvoices: number;
}

/**
 * Writes a whole mapped batch in dependency order: the organisation,
 * contacts and accounts (then the ones known only by reference) before the
 * rows that name them, then cash items (with their lines, allocations and
 * embedded payments), purchase orders, payments, bank transactions, bank
 * balances and journal lines. Counts are rows inserted or updated.
 */
export async function writeLedgerBatch(
  db: Db,
  orgId: string,
  batch: LedgerBatch,
  onProgress?: WriteProgress,
): Promise<BatchWritten> {
  const w: BatchWritten = {
    organisation: 0,
    contacts: 0,
    accounts: 0,
    cashItems: 0,
    lineItems: 0,
    allocations: 0,
    purchaseOrders: 0,
    purchaseOrderLines: 0,
    payments: 0,
    bankTransactions: 0,
    bankBalances: 0,
    journalLines: 0,
    repeatingInvoices: 0,
  };
  const step = async (resource: string, total: number, run: () => Promise<void>) => {
    await run();
    onProgress?.(resource, total, total);
  };
  if (batch.organisation) {
    await applyOrganisationUpdate(db, orgId, batch.organisation);
    w.organisation = 1;
    onProgress?.('Organisation', 1, 1);
  }
  await step('Contacts', batch.contacts.length, async () => {
    w.contacts = await upsertContacts(db, orgId, batch.contacts);
  });
  await step('Accounts', batch.accounts.length, async () => {
    w.accounts = await upsertAccounts(db, orgId, batch.accounts);
  });
  const contactRefs = [
    ...batch.cashItems.map((m) => m.contact),
    ...batch.purchaseOrders.map((m) => m.contact),
    ...batch.bankTransactions.map((m) => m.contact),
    ...batch.repeatingContacts,
  ].filter((c): c is ContactRow => c !== null);
  w.contacts += await insertContactRefs(db, orgId, contactRefs);
  const accountRefs = [
    ...batch.bankTransactions.map((m) => m.account).filter((a): a is AccountRow => a !== null),
    ...batch.bankSummary.accounts,
  ];
  w.accounts += await insertAccountRefs(db, orgId, accountRefs);

  const cash = await upsertCashItems(db, orgId, batch.cashItems, (done, total) => onProgress?.('CashItems', done, total));
  w.cashItems = cash.items;
  w.lineItems = cash.lines;
  w.allocations = cash.allocations;
  w.payments = cash.payments;

  const po = await upsertPurchaseOrders(db, orgId, batch.purchaseOrders, (done, total) =>
    onProgress?.('PurchaseOrders', done, total),
  );
  w.purchaseOrders = po.orders;
  w.purchaseOrderLines = po.lines;

  await step('Payments', batch.payments.length, async () => {
    w.payments += await upsertPayments(db, orgId, batch.payments);
  });
  await step('BankTransactions', batch.bankTransactions.length, async () => {
    w.bankTransactions = await upsertBankTransactions(
      db,
      orgId,
      batch.bankTransactions.map((m) => m.transaction),
    );
  });
  await step('BankSummary', batch.bankSummary.balances.length, async () => {
    w.bankBalances = await upsertBankBalances(db, orgId, batch.bankSummary.balances);
  });
  await step('Journals', batch.journalLines.length, async () => {
    w.journalLines = await upsertJournalLines(db, orgId, batch.journalLines);
  });
  if (batch.repeatingInvoices) {
    const list = batch.repeatingInvoices;
    await step('RepeatingInvoices', list.length, async () => {
      w.repeatingInvoices = await replaceRepeatingInvoices(db, orgId, list);
    });
  }
  return w;
}

// ---------------------------------------------------------------------------

/** One entry per id: the newest by `updated` (ties: the later one). */
function newestById<T>(items: readonly T[], idOf: (t: T) => string, updated: (t: T) => Date | null | undefined): T[] {
  const byId = new Map<string, T>();
  for (const it of items) {
    const prev = byId.get(idOf(it));
    if (prev) {
      const a = updated(prev)?.getTime() ?? -Infinity;
      const b = updated(it)?.getTime() ?? -Infinity;
      if (b < a) continue;
      byId.delete(idOf(it)); // keep the order of the latest occurrence
    }
    byId.set(idOf(it), it);
  }
  return [...byId.values()];
}

/** A contact named both as customer and as supplier by references is both. */
function mergeRoles(rows: readonly ContactRow[]): ContactRow[] {
  const byId = new Map<string, ContactRow>();
  for (const r of rows) {
    const prev = byId.get(r.id);
    if (!prev) byId.set(r.id, { ...r });
    else {
      prev.isCustomer = Boolean(prev.isCustomer || r.isCustomer);
      prev.isSupplier = Boolean(prev.isSupplier || r.isSupplier);
    }
  }
  return [...byId.values()];
}

/** Inserts a whole ledger's rows as they are, 500 at a time (a fresh organisation: no upsert rules apply). */
export async function insertLedgerRows(db: Db, ledger: LedgerRows): Promise<void> {
  const chunks = async <T>(list: T[], insert: (part: T[]) => Promise<unknown>) => {
    for (let i = 0; i < list.length; i += 500) await insert(list.slice(i, i + 500));
  };
  await chunks(ledger.contacts, (p) => db.insert(s.contacts).values(p));
  await chunks(ledger.accounts, (p) => db.insert(s.accounts).values(p));
  await chunks(ledger.bankBalances, (p) => db.insert(s.bankBalances).values(p));
  await chunks(ledger.items, (p) => db.insert(s.cashItems).values(p));
  await chunks(ledger.lines, (p) => db.insert(s.cashItemLines).values(p));
  await chunks(ledger.payments, (p) => db.insert(s.payments).values(p));
  await chunks(ledger.bankTransactions, (p) => db.insert(s.bankTransactions).values(p));
  await chunks(ledger.purchaseOrders, (p) => db.insert(s.purchaseOrders).values(p));
}

/** The advisory-lock namespace of an organisation's ledger writers (imports and syncs). */
export const LEDGER_LOCK_NAMESPACE = 'cashline:ledger:';

/** Runs `fn` in one transaction holding the organisation's ledger lock: one writer per organisation at a time. */
export async function withLedgerLock<T>(db: Db, orgId: string, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    await t.execute(sql`select pg_advisory_xact_lock(hashtext(${LEDGER_LOCK_NAMESPACE + orgId}))`);
    return fn(t);
  });
}
