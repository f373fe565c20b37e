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

export function syntheticLedger(orgId: string, opts: SyntheticOptions): SyntheticLedger {
  const rng = new Rng(opts.seed);
  const asOf = toDay(opts.asOf);
  const start = asOf - Math.round((opts.years ?? 2.5) * 365);
  const synced = new Date(`${opts.asOf}T12:00:00Z`);
  const out: SyntheticLedger = {
    contacts: [],
    accounts: [],
    bankBalances: [],
    items: [],
    lines: [],
    payments: [],
    bankTransactions: [],
    purchaseOrders: [],
    habits: new Map(),
  };
  let seq = 0;
  const id = (p: string) => `${p}-${String(++seq).padStart(6, '0')}`;
  const bank = 'acc-bank';
  const account = (aid: string, code: string, name: string, type: string) =>
    out.accounts.push({ orgId, id: aid, code, name, type, class: type === 'BANK' ? 'ASSET' : null, lastSyncedAt: synced });
  account(bank, '090', 'Operating Account', 'BANK');
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

  let cashMoves: { day: number; cents: number }[] = [{ day: start - 1, cents: 8_000_000 }];
  const contact = (name: string, customer: boolean) => {
    const cid = id('c');
    out.contacts.push({ orgId, id: cid, name, isCustomer: customer, isSupplier: !customer, lastSyncedAt: synced });
    return cid;
  };
  const season = (day: number) => 1 + 0.2 * Math.cos(((new Date(day * 86_400_000).getUTCMonth() - 5) / 12) * 2 * Math.PI);
  const growth = (day: number) => 1 + (0.08 * (day - start)) / 365;

  const document = (
    kind: 'AR' | 'AP',
    contactId: string,
    issue: number,
    terms: number,
    cents: number,
    accountCode: string,
    pay: { delays: number[] | null; parts?: number[] },
    extra: { reference?: string; draft?: boolean } = {},
  ) => {
    const iid = id(kind === 'AR' ? 'inv' : 'bill');
    const due = issue + terms;
    let paidCents = 0;
    let paidDay: number | null = null;
    if (!extra.draft && pay.delays) {
      const parts = pay.parts ?? [1];
      let given = 0;
      parts.forEach((share, i) => {
        const day = Math.max(issue, due + pay.delays![i]!);
        if (day > asOf) return;
        const c = i === parts.length - 1 ? cents - given : Math.round(cents * share);
        given += c;
        paidCents += c;
        paidDay = day;
        out.payments.push({
          orgId,
          id: id('pay'),
          itemId: iid,
          bankAccountId: bank,
          date: fromDay(day),
          amount: money(c),
          paymentType: kind === 'AR' ? 'ACCRECPAYMENT' : 'ACCPAYPAYMENT',
          status: 'AUTHORISED',
          isReconciled: day <= asOf - 2,
          lastSyncedAt: synced,
        });
        cashMoves.push({ day, cents: kind === 'AR' ? c : -c });
      });
    }
    const status = extra.draft ? 'DRAFT' : paidCents >= cents ? 'PAID' : 'AUTHORISED';
    out.items.push({
      orgId,
      id: iid,
      source: kind === 'AR' ? 'LEDGER_INVOICE' : 'LEDGER_BILL',
      ledgerType: kind === 'AR' ? 'ACCREC' : 'ACCPAY',
      number: `${kind === 'AR' ? 'INV' : 'BILL'}-${seq}`,
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
      lastSyncedAt: synced,
    });
    out.lines.push({ orgId, itemId: iid, lineNumber: 1, id: `${iid}:1`, lineAmount: money(cents), taxAmount: '0', accountCode });
    return iid;
  };

  // ---------------------------------------------------------------- customers
  const nCustomers = opts.customers ?? 150;
  const habits: { habit: Habit; w: number }[] = [
    { habit: 'prompt', w: 0.45 },
    { habit: 'early', w: 0.1 },
    { habit: 'late', w: 0.2 },
    { habit: 'very_late', w: 0.15 },
    { habit: 'erratic', w: 0.1 },
  ];
  const delayOf = (h: Habit, terms: number) => {
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
  };
  const meanOf: Record<Habit, number> = { prompt: 0, early: -4, late: 12, very_late: 45, erratic: 35 };
  for (let i = 0; i < nCustomers; i++) {
    const cid = contact(`Customer ${i + 1}`, true);
    let r = rng.next();
    const habit = habits.find((h) => (r -= h.w) < 0)?.habit ?? 'prompt';
    out.habits.set(cid, { habit, meanDelay: meanOf[habit] });
    const terms = rng.pick([0, 7, 14, 14, 30, 30, 30, 45, 60]);
    const level = Math.exp(rng.normal(Math.log(1_500_00), 0.9));
    const kind = rng.next();
    const acquired = start + rng.int(0, asOf - start - 30);
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
    for (const day of days) {
      if (day > asOf) continue;
      const cents = Math.max(1_000, Math.round(level * season(day) * growth(day) * Math.exp(rng.normal(0, 0.3))));
      const draft = asOf - day <= 5 && rng.chance(0.15);
      const neverPaid = rng.chance(0.015);
      const split = rng.chance(0.05);
      const d1 = delayOf(habit, terms);
      document('AR', cid, day, terms, cents, '200', {
        delays: neverPaid ? null : split ? [d1 - rng.int(5, 20), d1] : [d1],
        ...(split ? { parts: [0.5, 0.5] } : {}),
      }, { draft });
    }
  }

  // ---------------------------------------------------------------- suppliers and bills (the organisation pays ~2 days late)
  const orgDelay = () => Math.max(-1, Math.round(rng.normal(2, 2)));
  const landlord = contact('Landlord GmbH', false);
  const software = [contact('SaaS One', false), contact('SaaS Two', false)];
  const utility = contact('City Utilities', false);
  const stock = Array.from({ length: 4 }, (_, i) => contact(`Stock Supplier ${i + 1}`, false));
  const subsDom = software.map(() => rng.int(1, 28));
  for (let d = start; d <= asOf; d++) {
    const dt = new Date(d * 86_400_000);
    const dom = dt.getUTCDate();
    if (dom === 3) document('AP', landlord, d, 7, 350_000, '469', { delays: [0] });
    software.forEach((c, i) => {
      if (dom === subsDom[i]) document('AP', c, d, 0, 9_900 + i * 20_000, '485', { delays: [0] });
    });
  }
  for (let d = start + rng.int(0, 30); d <= asOf; d += rng.int(58, 64)) {
    document('AP', utility, d, 21, Math.round(rng.normal(60_000, 8_000) * season(d)), '445', { delays: [orgDelay()] });
  }
  let poSeq = 0;
  for (const c of stock) {
    const level = rng.int(300_000, 900_000);
    for (let d = start + rng.int(0, 10); d <= asOf + 40; d += rng.int(8, 18)) {
      const cents = Math.round(level * season(d) * Math.exp(rng.normal(0, 0.25)));
      const number = `PO-${String(++poSeq).padStart(5, '0')}`;
      const poDay = d - rng.int(3, 9);
      if (poDay > asOf) break;
      const billed = d <= asOf;
      if (billed) document('AP', c, d, 30, cents, '310', { delays: [orgDelay()] }, { reference: number });
      out.purchaseOrders.push({
        orgId,
        id: id('po'),
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
        lastSyncedAt: synced,
      });
    }
  }

  // ---------------------------------------------------------------- bank-only movements
  const payroll = contact('Payroll Clearing', false);
  const owner = contact('Owner', false);
  const taxOffice = contact('Tax Office', false);
  const txn = (day: number, cents: number, contactId: string | null, code: string, reference: string) => {
    out.bankTransactions.push({
      orgId,
      id: id('bt'),
      type: cents >= 0 ? 'RECEIVE' : 'SPEND',
      contactId,
      bankAccountId: bank,
      date: fromDay(day),
      status: 'AUTHORISED',
      isReconciled: day <= asOf - 2,
      reference,
      currency: 'EUR',
      subTotal: money(Math.abs(cents)),
      totalTax: '0',
      total: money(Math.abs(cents)),
      lines: [{ description: reference, lineAmount: money(Math.abs(cents)), accountCode: code }],
      lastSyncedAt: synced,
    });
    cashMoves.push({ day, cents });
  };
  const salesByDay = new Map<number, number>();
  for (const it of out.items) {
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
    if (dom === 25) txn(d, -Math.round(1_800_000 * growth(d)), payroll, '477', 'Salaries');
    if (dt.getUTCDay() === 5) txn(d, -150_000, owner, '880', 'Owner drawing');
    if (dom === 28 && month % 3 === 0) {
      txn(d, -Math.max(50_000, Math.round(quarterSales * 0.08)), taxOffice, '820', 'Quarterly tax');
      quarterSales = 0;
    }
    if (rng.chance(1 / 7)) txn(d, -rng.int(2_000, 60_000), null, '429', `Card purchase ${rng.int(100, 999)}`);
    if (rng.chance(1 / 45)) txn(d, rng.int(10_000, 200_000), null, '260', 'Sundry receipt');
  }

  // ---------------------------------------------------------------- balance
  cashMoves = cashMoves.filter((m) => m.day <= asOf);
  const reconciled = cashMoves.filter((m) => m.day <= asOf - 2).reduce((a, m) => a + m.cents, 0);
  out.bankBalances.push({ orgId, accountId: bank, reconciledBalance: money(reconciled), balanceSyncedAt: synced });
  return out;
}

export async function insertSynthetic(db: Db, ledger: SyntheticLedger): Promise<void> {
  await insertLedgerRows(db, ledger);
}
