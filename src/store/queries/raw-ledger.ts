/**
 * The raw ledger the backtest replays (src/backtest/): an organisation's
 * whole ledger, every invoice and bill with its current state, payments,
 * credit allocations, bank transactions, purchase orders and today's book
 * balance per bank account, in the base currency.
 */
import { sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import { canonical, dec } from '../../domain/money.js';
import type { BankTxn, LedgerItem, LedgerStatus, LiabilityLine, PurchaseOrder } from '../../domain/forecast/types.js';
import { base } from './forecast-items.js';
import { loadAccounts, type OrgMeta } from './organisation.js';
import { loadBankBalances } from './cash-position.js';
import { BANK_TXN_COLUMNS, bankTxnOf, type BankTxnRow, loadLiabilityLines, loadPurchaseOrders } from './forecast-input.js';
import { accountIdsOf } from './forecast-items.js';
import { PAYMENT_SIGNED } from './payment-amounts.js';

interface ItemRow extends Record<string, unknown> {
  id: string;
  t: string;
  c: string | null;
  st: string;
  iss: string | null;
  due: string | null;
  paid: string | null;
  total: string;
  amount_due: string;
  num?: string | null;
  ref: string | null;
  acc?: string | null;
  /** Its lines' account codes when it has more than one line. */
  codes?: (string | null)[] | null;
}

function toItem(r: ItemRow, accountId: string | null, accountIds?: string[]): LedgerItem {
  return {
    id: r.id,
    kind: r.t === 'ACCREC' ? 'AR' : 'AP',
    contactId: r.c,
    status: r.st as LedgerStatus,
    issueDate: r.iss,
    dueDate: r.due,
    paidDate: r.paid,
    total: r.total,
    amountDue: r.amount_due,
    number: r.num ?? null,
    reference: r.ref,
    accountId,
    ...(accountIds ? { accountIds } : {}),
  };
}

export interface RawPayment {
  itemId: string;
  date: string;
  /** Signed, base currency: money in positive. */
  amount: string;
  bankAccountId: string | null;
}

export interface RawAllocation {
  invoiceId: string;
  date: string | null;
  /** Base currency, of the invoice. */
  amount: string;
}

export interface RawBankTxn extends BankTxn {
  bankAccountId: string;
  transfer: boolean;
}

export interface RawLedger {
  orgId: string;
  currency: string;
  timezone: string;
  /** Invoices and bills with their current state (the state at a cut-off is rebuilt from payments and allocations). */
  items: LedgerItem[];
  payments: RawPayment[];
  allocations: RawAllocation[];
  bankTxns: RawBankTxn[];
  purchaseOrders: PurchaseOrder[];
  /** Per bank account: today's book balance (reconciled plus every unreconciled movement). */
  bankAccounts: { id: string; name: string; currency: string; book: string }[];
  accounts: Record<string, { name: string; code: string | null }>;
  /** The liability accounts' journal lines per day (forecast-input.ts loadLiabilityLines), in account then day order. */
  liabilityLines: LiabilityLine[];
}

/**
 * The whole ledger of an organisation, for replaying it at past cut-offs. In
 * id order (bytewise, the same on every server whatever its collation): the
 * same books give the same raw ledger on PGlite and on PostgreSQL.
 */
export async function loadRawLedger(db: Db, org: OrgMeta): Promise<RawLedger> {
  const { byId, idByCode } = await loadAccounts(db, org.id);
  const items = await rows<ItemRow>(
    db,
    sql`select i.id, i.ledger_type as t, i.contact_id as c, i.ledger_status as st, i.issue_date as iss, i.due_date as due,
          i.paid_date as paid, ${base('total')} as total, ${base('amount_due')} as amount_due, i.number as num, i.reference as ref,
          (select l.account_code from cash_item_lines l where l.org_id = i.org_id and l.item_id = i.id
            order by abs(l.line_amount) desc, l.line_number limit 1) as acc,
          (select case when count(*) > 1 then jsonb_agg(l.account_code) end from cash_item_lines l where l.org_id = i.org_id and l.item_id = i.id) as codes
        from cash_items i join organisations o on o.id = i.org_id
        where i.org_id = ${org.id} and i.source in ('LEDGER_INVOICE', 'LEDGER_BILL')
        order by i.id collate "C"`,
  );
  const payments = await paymentRows(db, org.id, null);
  const allocations = await rows<{ inv: string; date: string | null; amount: string }>(
    db,
    sql`select a.invoice_id as inv, a.date,
          case when i.currency = o.base_currency or i.currency_rate is null or i.currency_rate = 0 then a.amount
            else round(a.amount / i.currency_rate, 2) end as amount
        from credit_note_allocations a join cash_items i on i.org_id = a.org_id and i.id = a.invoice_id join organisations o on o.id = a.org_id
        where a.org_id = ${org.id}
        order by a.credit_note_id collate "C", a.seq`,
  );
  const txns = await bankTxnRows(db, org.id, null);
  return {
    orgId: org.id,
    currency: org.baseCurrency,
    timezone: org.timezone,
    items: items.map((r) => toItem(r, r.acc ? (idByCode.get(r.acc) ?? null) : null, accountIdsOf(r.codes ?? null, idByCode))),
    payments: payments.map((p) => ({ itemId: p.item, date: p.date, amount: p.amount, bankAccountId: p.acc })),
    allocations: allocations.map((a) => ({ invoiceId: a.inv, date: a.date, amount: a.amount })),
    bankTxns: txns.map((t) => ({ ...bankTxnOf(t, idByCode), bankAccountId: t.acc, transfer: t.tr })),
    purchaseOrders: await loadPurchaseOrders(db, org.id),
    bankAccounts: await bookBalances(db, org.id),
    accounts: byId,
    liabilityLines: await loadLiabilityLines(db, org.id),
  };
}

/**
 * The money that moved from `since` on (payments and bank transactions, as
 * the raw ledger holds them) and today's book balances: what
 * GET /forecast/accuracy measures stored forecasts against.
 */
export async function loadMovementsSince(
  db: Db,
  orgId: string,
  since: string,
): Promise<{ payments: RawPayment[]; bankTxns: { date: string; amount: string; bankAccountId: string; transfer: boolean }[]; bankAccounts: RawLedger['bankAccounts'] }> {
  const [payments, txns, bankAccounts] = [await paymentRows(db, orgId, since), await bankTxnRows(db, orgId, since), await bookBalances(db, orgId)];
  return {
    payments: payments.map((p) => ({ itemId: p.item, date: p.date, amount: p.amount, bankAccountId: p.acc })),
    bankTxns: txns.map((t) => ({ date: t.date, amount: t.amount, bankAccountId: t.acc, transfer: t.tr })),
    bankAccounts,
  };
}

/** Payments of invoices, bills and credit notes (signed, base currency), from `since` on (null: all). */
function paymentRows(db: Db, orgId: string, since: string | null) {
  return rows<{ item: string; date: string; amount: string; acc: string | null }>(
    db,
    sql`select p.item_id as item, p.date, ${PAYMENT_SIGNED} as amount, p.bank_account_id as acc
        from payments p join cash_items i on i.org_id = p.org_id and i.id = p.item_id join organisations o on o.id = p.org_id
        where p.org_id = ${orgId} and p.status <> 'DELETED'${since === null ? sql`` : sql` and p.date >= ${since}`}
        order by p.id collate "C"`,
  );
}

/** Authorised bank transactions (spend negative), from `since` on (null: all). */
function bankTxnRows(db: Db, orgId: string, since: string | null) {
  return rows<BankTxnRow & { acc: string; tr: boolean }>(
    db,
    sql`select ${BANK_TXN_COLUMNS}, bank_account_id as acc, type like '%TRANSFER' as tr
        from bank_transactions where org_id = ${orgId} and status = 'AUTHORISED'${since === null ? sql`` : sql` and date >= ${since}`}
        order by id collate "C"`,
  );
}

/** Per bank account, today's book balance: the statement balance, or the reconciled one plus every unreconciled movement. */
async function bookBalances(db: Db, orgId: string): Promise<RawLedger['bankAccounts']> {
  const balances = await loadBankBalances(db, orgId, '9999-12-31');
  return balances.map((b) => ({ id: b.id, name: b.name, currency: b.currency, book: b.statementBalance ?? addDec(b.reconciledBalance, b.unreconciledNet) }));
}

function addDec(a: string, b: string): string {
  return canonical(dec(a).plus(dec(b)));
}
