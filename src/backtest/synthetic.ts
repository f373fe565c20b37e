/**
 * A synthetic ledger with known behaviour, for the backtest's tests and for
 * tuning the engine (docs/forecast.md#backtest: the engine is tuned on this
 * set only, never on the demo or the Online Retail data). Different from the
 * demo by design: its own customer archetypes (regular, bursty, one-off),
 * payment habits (prompt, early, late, very late, erratic; some invoices are
 * never paid), terms, a mid-year seasonal peak, monthly payroll and owner
 * drawings as bank transactions, quarterly tax, rent, subscriptions,
 * utilities every two months, stock suppliers with purchase orders, and an
 * organisation that pays its bills a couple of days late.
 *
 * Rows are written straight into the store (no importer), one bank account.
 */
import { Rng } from '../domain/random.js';
import type { Db } from '../store/db.js';
import type { LedgerRows } from '../store/rows.js';
import { insertLedgerRows } from '../store/ledger-write/whole-ledger.js';
import { fromDay, toDay } from '../domain/forecast/days.js';

export type Habit = 'prompt' | 'early' | 'late' | 'very_late' | 'erratic';

export interface SyntheticOptions {
  seed: number;
  /** The last day of history (YYYY-MM-DD). */
  asOf: string;
  years?: number;
  customers?: number;
}

export interface SyntheticLedger extends LedgerRows {
  /** Each customer's payment habit and mean delay (days after due), for tests. */
  habits: Map<string, { habit: Habit; meanDelay: number }>;
}

const money = (cents: number) => (cents / 100).toFixed(2);

/** The generator's state, shared by its phases (each draws from the one random stream, in order). */
export interface Gen {
  orgId: string;
  rng: Rng;
  asOf: number;
  start: number;
  synced: Date;
  out: SyntheticLedger;
  seq: number;
  cashMoves: { day: number; cents: number }[];
}

const BANK = 'acc-bank';
const nextId = (g: Gen, p: string) => `${p}-${String(++g.seq).padStart(6, '0')}`;
const season = (day: number) => 1 + 0.2 * Math.cos(((new Date(day * 86_400_000).getUTCMonth() - 5) / 12) * 2 * Math.PI);
const growth = (g: Gen, day: number) => 1 + (0.08 * (day - g.start)) / 365;

export function syntheticLedger(orgId: string, opts: SyntheticOptions): SyntheticLedger {
  const g = newGen(orgId, opts);
  addAccounts(g);
  g.cashMoves.push({ day: g.start - 1, cents: 8_000_000 });
  addCustomers(g, opts.customers ?? 150);
  const suppliers = addSuppliers(g);
  addOverheadBills(g, suppliers);
  addStockPurchases(g, suppliers.stock);
  addBankMovements(g);
  return finish(g);
}

/** A generator's state: no rows yet, its history starting `years` (2.5 by default) before asOf. */
export function newGen(orgId: string, opts: SyntheticOptions): Gen {
  const asOf = toDay(opts.asOf);
  return {
    orgId,
    rng: new Rng(opts.seed),
    asOf,
    start: asOf - Math.round((opts.years ?? 2.5) * 365),
    synced: new Date(`${opts.asOf}T12:00:00Z`),
    out: { contacts: [], accounts: [], bankBalances: [], items: [], lines: [], payments: [], bankTransactions: [], purchaseOrders: [], habits: new Map() },
    seq: 0,
    cashMoves: [],
  };
}

/** The ledger's rows, with the bank balance: its reconciled movements up to two days before asOf. */
export function finish(g: Gen): SyntheticLedger {
  g.cashMoves = g.cashMoves.filter((m) => m.day <= g.asOf);
  const reconciled = g.cashMoves.filter((m) => m.day <= g.asOf - 2).reduce((acc, m) => acc + m.cents, 0);
  g.out.bankBalances.push({ orgId: g.orgId, accountId: BANK, reconciledBalance: money(reconciled), balanceSyncedAt: g.synced });
  return g.out;
}

export function addAccounts(g: Gen): void {
  const account = (aid: string, code: string, name: string, type: string) =>
    g.out.accounts.push({ orgId: g.orgId, id: aid, code, name, type, class: type === 'BANK' ? 'ASSET' : null, lastSyncedAt: g.synced });
  account(BANK, '090', 'Operating Account', 'BANK');
  account('acc-sales', '200', 'Sales', 'REVENUE');
  account('acc-cogs', '310', 'Cost of Goods Sold', 'DIRECTCOSTS');
  account('acc-rent', '469', 'Rent', 'EXPENSE');
  account('acc-subs', '485', 'Subscriptions', 'EXPENSE');
  account('acc-util', '445', 'Utilities', 'EXPENSE');
  account('acc-wages', '477', 'Wages', 'EXPENSE');
  account('acc-tax', '820', 'Tax', 'CURRLIAB');
  account('acc-owner', '880', 'Owner drawings', 'EQUITY');
  account('acc-misc', '429', 'General Expenses', 'EXPENSE');
  account('acc-other-income', '260', 'Other Revenue', 'REVENUE');
}

export function addContact(g: Gen, name: string, customer: boolean): string {
  const cid = nextId(g, 'c');
  g.out.contacts.push({ orgId: g.orgId, id: cid, name, isCustomer: customer, isSupplier: !customer, lastSyncedAt: g.synced });
  return cid;
}

interface Payment {
  delays: number[] | null;
  parts?: number[];
}

/** Pays a document's parts on their days (those up to asOf); returns the cents paid and the last day. */
function payDocument(g: Gen, kind: 'AR' | 'AP', iid: string, issue: number, due: number, cents: number, pay: Payment): { paidCents: number; paidDay: number | null } {
  let paidCents = 0;
  let paidDay: number | null = null;
  const parts = pay.parts ?? [1];
  let given = 0;
  parts.forEach((share, i) => {
    const day = Math.max(issue, due + pay.delays![i]!);
    if (day > g.asOf) return;
    const c = i === parts.length - 1 ? cents - given : Math.round(cents * share);
    given += c;
    paidCents += c;
    paidDay = day;
    g.out.payments.push({
      orgId: g.orgId,
      id: nextId(g, 'pay'),
      itemId: iid,
      bankAccountId: BANK,
      date: fromDay(day),
      amount: money(c),
      paymentType: kind === 'AR' ? 'ACCRECPAYMENT' : 'ACCPAYPAYMENT',
      status: 'AUTHORISED',
      isReconciled: day <= g.asOf - 2,
      lastSyncedAt: g.synced,
    });
    g.cashMoves.push({ day, cents: kind === 'AR' ? c : -c });
  });
  return { paidCents, paidDay };
}

export function addDocument(
  g: Gen,
  kind: 'AR' | 'AP',
  contactId: string,
  issue: number,
  terms: number,
  cents: number,
  accountCode: string,
  pay: Payment,
  extra: { reference?: string; draft?: boolean } = {},
): string {
  const iid = nextId(g, kind === 'AR' ? 'inv' : 'bill');
  const due = issue + terms;
  const { paidCents, paidDay } = !extra.draft && pay.delays ? payDocument(g, kind, iid, issue, due, cents, pay) : { paidCents: 0, paidDay: null };
  const status = extra.draft ? 'DRAFT' : paidCents >= cents ? 'PAID' : 'AUTHORISED';
  g.out.items.push({
    orgId: g.orgId,
    id: iid,
    source: kind === 'AR' ? 'LEDGER_INVOICE' : 'LEDGER_BILL',
    ledgerType: kind === 'AR' ? 'ACCREC' : 'ACCPAY',
    number: `${kind === 'AR' ? 'INV' : 'BILL'}-${g.seq}`,
    reference: extra.reference ?? null,
    contactId,
    ledgerStatus: status,
    status: status === 'PAID' ? 'ACTUAL' : 'FORECAST',
    currency: 'EUR',
    issueDate: fromDay(issue),
    dueDate: fromDay(due),
    paidDate: status === 'PAID' && paidDay !== null ? fromDay(paidDay) : null,
    sortDate: fromDay(issue),
    subTotal: money(cents),
    totalTax: '0',
    total: money(cents),
    amountDue: money(cents - paidCents),
    amountPaid: money(paidCents),
    amountCredited: '0',
    lastSyncedAt: g.synced,
  });
  g.out.lines.push({ orgId: g.orgId, itemId: iid, lineNumber: 1, id: `${iid}:1`, lineAmount: money(cents), taxAmount: '0', accountCode });
  return iid;
}

const HABITS: { habit: Habit; w: number }[] = [
  { habit: 'prompt', w: 0.45 },
  { habit: 'early', w: 0.1 },
  { habit: 'late', w: 0.2 },
  { habit: 'very_late', w: 0.15 },
  { habit: 'erratic', w: 0.1 },
];
const MEAN_DELAY: Record<Habit, number> = { prompt: 0, early: -4, late: 12, very_late: 45, erratic: 35 };

function delayOf(rng: Rng, h: Habit, terms: number): number {
  switch (h) {
    case 'prompt':
      return Math.round(rng.normal(0, 1.5));
    case 'early':
      return Math.max(-terms, Math.round(rng.normal(-4, 2)));
    case 'late':
      return Math.round(rng.normal(12, 4));
    case 'very_late':
      return Math.round(rng.normal(45, 10));
    case 'erratic':
      return rng.int(0, 70);
  }
}

/** A customer's order days: regular (a gap with jitter, maybe churning), bursty (exponential gaps) or one-off. */
function orderDays(g: Gen, acquired: number, kind: number): number[] {
  const { rng, asOf } = g;
  const days: number[] = [];
  if (kind < 0.55) {
    const gap = rng.pick([7, 14, 21, 28, 35, 42, 56, 63, 91]);
    const jitter = gap * (0.08 + rng.next() * 0.17);
    const churn = rng.chance(0.2) ? acquired + rng.int(gap * 3, gap * 20) : Infinity;
    for (let d = acquired; d <= asOf && d < churn; d += Math.max(2, Math.round(gap + rng.normal(0, jitter)))) days.push(d);
  } else if (kind < 0.7) {
    const mean = rng.int(20, 80);
    for (let d = acquired; d <= asOf; d += Math.max(1, Math.round(-Math.log(1 - rng.next()) * mean))) days.push(d);
  } else {
    days.push(acquired);
    if (rng.chance(0.3)) days.push(acquired + rng.int(15, 300));
  }
  return days;
}

function addCustomers(g: Gen, nCustomers: number): void {
  const { rng, asOf, start } = g;
  for (let i = 0; i < nCustomers; i++) {
    const cid = addContact(g, `Customer ${i + 1}`, true);
    let r = rng.next();
    const habit = HABITS.find((h) => (r -= h.w) < 0)?.habit ?? 'prompt';
    g.out.habits.set(cid, { habit, meanDelay: MEAN_DELAY[habit] });
    const terms = rng.pick([0, 7, 14, 14, 30, 30, 30, 45, 60]);
    const level = Math.exp(rng.normal(Math.log(1_500_00), 0.9));
    const kind = rng.next();
    const acquired = start + rng.int(0, asOf - start - 30);
    for (const day of orderDays(g, acquired, kind)) {
      if (day > asOf) continue;
      const cents = Math.max(1_000, Math.round(level * season(day) * growth(g, day) * Math.exp(rng.normal(0, 0.3))));
      const draft = asOf - day <= 5 && rng.chance(0.15);
      const neverPaid = rng.chance(0.015);
      const split = rng.chance(0.05);
      const d1 = delayOf(rng, habit, terms);
      addDocument(g, 'AR', cid, day, terms, cents, '200', {
        delays: neverPaid ? null : split ? [d1 - rng.int(5, 20), d1] : [d1],
        ...(split ? { parts: [0.5, 0.5] } : {}),
      }, { draft });
    }
  }
}

/** The organisation pays its bills about two days late. */
const orgDelay = (g: Gen) => Math.max(-1, Math.round(g.rng.normal(2, 2)));

interface Suppliers {
  landlord: string;
  software: string[];
  utility: string;
  stock: string[];
}

function addSuppliers(g: Gen): Suppliers {
  const landlord = addContact(g, 'Landlord GmbH', false);
  const software = [addContact(g, 'SaaS One', false), addContact(g, 'SaaS Two', false)];
  const utility = addContact(g, 'City Utilities', false);
  const stock = Array.from({ length: 4 }, (_, i) => addContact(g, `Stock Supplier ${i + 1}`, false));
  return { landlord, software, utility, stock };
}

/** Rent, two subscriptions and utilities every two months. */
function addOverheadBills(g: Gen, { landlord, software, utility }: Suppliers): void {
  const { rng, asOf, start } = g;
  const subsDom = software.map(() => rng.int(1, 28));
  for (let d = start; d <= asOf; d++) {
    const dom = new Date(d * 86_400_000).getUTCDate();
    if (dom === 3) addDocument(g, 'AP', landlord, d, 7, 350_000, '469', { delays: [0] });
    software.forEach((c, i) => {
      if (dom === subsDom[i]) addDocument(g, 'AP', c, d, 0, 9_900 + i * 20_000, '485', { delays: [0] });
    });
  }
  for (let d = start + rng.int(0, 30); d <= asOf; d += rng.int(58, 64)) {
    addDocument(g, 'AP', utility, d, 21, Math.round(rng.normal(60_000, 8_000) * season(d)), '445', { delays: [orgDelay(g)] });
  }
}

/** Stock bought on purchase orders, billed on delivery (orders due after asOf stay AUTHORISED). */
function addStockPurchases(g: Gen, stock: readonly string[]): void {
  const { rng, asOf, start } = g;
  let poSeq = 0;
  for (const c of stock) {
    const level = rng.int(300_000, 900_000);
    for (let d = start + rng.int(0, 10); d <= asOf + 40; d += rng.int(8, 18)) {
      const cents = Math.round(level * season(d) * Math.exp(rng.normal(0, 0.25)));
      const number = `PO-${String(++poSeq).padStart(5, '0')}`;
      const poDay = d - rng.int(3, 9);
      if (poDay > asOf) break;
      const billed = d <= asOf;
      if (billed) addDocument(g, 'AP', c, d, 30, cents, '310', { delays: [orgDelay(g)] }, { reference: number });
      g.out.purchaseOrders.push({
        orgId: g.orgId,
        id: nextId(g, 'po'),
        number,
        reference: number,
        contactId: c,
        status: billed ? 'BILLED' : 'AUTHORISED',
        currency: 'EUR',
        issueDate: fromDay(poDay),
        deliveryDate: fromDay(d),
        expectedArrivalDate: fromDay(d),
        sortDate: fromDay(poDay),
        subTotal: money(cents),
        totalTax: '0',
        total: money(cents),
        lastSyncedAt: g.synced,
      });
    }
  }
}

export function addBankTransaction(g: Gen, day: number, cents: number, contactId: string | null, code: string, reference: string): void {
  g.out.bankTransactions.push({
    orgId: g.orgId,
    id: nextId(g, 'bt'),
    type: cents >= 0 ? 'RECEIVE' : 'SPEND',
    contactId,
    bankAccountId: BANK,
    date: fromDay(day),
    status: 'AUTHORISED',
    isReconciled: day <= g.asOf - 2,
    reference,
    currency: 'EUR',
    subTotal: money(Math.abs(cents)),
    totalTax: '0',
    total: money(Math.abs(cents)),
    lines: [{ description: reference, lineAmount: money(Math.abs(cents)), accountCode: code }],
    lastSyncedAt: g.synced,
  });
  g.cashMoves.push({ day, cents });
}

/** Bank-only movements: salaries, owner drawings, quarterly tax on the quarter's sales, card purchases, sundry receipts. */
function addBankMovements(g: Gen): void {
  const { rng, asOf, start } = g;
  const payroll = addContact(g, 'Payroll Clearing', false);
  const owner = addContact(g, 'Owner', false);
  const taxOffice = addContact(g, 'Tax Office', false);
  const salesByDay = new Map<number, number>();
  for (const it of g.out.items) {
    if (it.ledgerType !== 'ACCREC') continue;
    const d = toDay(it.issueDate!);
    salesByDay.set(d, (salesByDay.get(d) ?? 0) + Math.round(Number(it.total) * 100));
  }
  let quarterSales = 0;
  for (let d = start; d <= asOf; d++) {
    quarterSales += salesByDay.get(d) ?? 0;
    const dt = new Date(d * 86_400_000);
    const dom = dt.getUTCDate();
    const month = dt.getUTCMonth();
    if (dom === 25) addBankTransaction(g, d, -Math.round(1_800_000 * growth(g, d)), payroll, '477', 'Salaries');
    if (dt.getUTCDay() === 5) addBankTransaction(g, d, -150_000, owner, '880', 'Owner drawing');
    if (dom === 28 && month % 3 === 0) {
      addBankTransaction(g, d, -Math.max(50_000, Math.round(quarterSales * 0.08)), taxOffice, '820', 'Quarterly tax');
      quarterSales = 0;
    }
    if (rng.chance(1 / 7)) addBankTransaction(g, d, -rng.int(2_000, 60_000), null, '429', `Card purchase ${rng.int(100, 999)}`);
    if (rng.chance(1 / 45)) addBankTransaction(g, d, rng.int(10_000, 200_000), null, '260', 'Sundry receipt');
  }
}

export async function insertSynthetic(db: Db, ledger: SyntheticLedger): Promise<void> {
  await insertLedgerRows(db, ledger);
}
