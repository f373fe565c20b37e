/**
 * The demo business: a deterministic generator of a realistic small
 * Australian wholesaler ("Harbour & Vine Supplies") with three years of
 * history, written as Xero Accounting API response bodies (the files
 * `cashline-server import` reads), so the demo exercises the real import path.
 *
 * Money is kept in integer cents throughout (exact), and written as JSON
 * numbers with at most two decimals, as Xero does. Every invoice, bill,
 * credit note, payment and bank transaction is also posted as a balanced
 * journal, so balances as at any date can be computed. docs/demo-data.md
 * describes the business.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../domain/random.js';

export type XeroFiles = Record<string, unknown>;

export interface DemoOptions {
  seed?: number;
  asOf: Date;
  /** Multiplies the number of customers (1 = about 320), and sizes the overheads. */
  scale?: number;
  name?: string;
  /**
   * The kind of business (docs/demo-data.md): its cost of goods as a share of
   * sales, and the weeks of outflows it holds in cash on the day.
   * Default: the wholesaler.
   */
  profile?: DemoProfile;
  onProgress?: (step: string, done: number, total: number) => void;
}

export interface DemoOutput {
  files: XeroFiles;
  /** What the operator flags sensitive in the demo (payroll, the director). */
  sensitive: { contactIds: string[]; accountCodes: string[] };
  counts: Record<string, number>;
}

export interface DemoProfile {
  /** Stock bought, as a share of sales ex GST. */
  cogsRatio: number;
  /** Cash across the bank accounts on the day, in weeks of average outflows (small businesses hold a median of 27 days). */
  cashWeeks: number;
  /** A large one-off bill due this many days after the day (a shipment, equipment), as weeks of outflows; none when absent. */
  lumpyBill?: { inDays: number; weeks: number; supplier: string; desc: string };
}

export const WHOLESALER: DemoProfile = { cogsRatio: 0.55, cashWeeks: 7 };
export const ROASTER: DemoProfile = {
  cogsRatio: 0.45,
  cashWeeks: 3.5,
  lumpyBill: { inDays: 54, weeks: 4, supplier: 'Santos Green Coffee Importers', desc: 'Green coffee, container from Brazil' },
};

const DAY_MS = 86_400_000;
const SEASON = [0.75, 0.85, 0.95, 1.0, 1.0, 0.95, 0.9, 0.95, 1.0, 1.05, 1.15, 1.4];

const dayOf = (d: Date) => Math.floor(d.getTime() / DAY_MS);
const msDate = (day: number) => `/Date(${day * DAY_MS}+0000)/`;
const msStamp = (day: number, hour = 10) => `/Date(${day * DAY_MS + hour * 3_600_000}+0000)/`;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const monthOf = (day: number) => new Date(day * DAY_MS).getUTCMonth();
/** Cents as a JSON number with at most two decimals (exact: the shortest round-trip form). */
const amt = (cents: number) => cents / 100;

interface Account {
  AccountID: string;
  Code: string;
  Name: string;
  Type: string;
  Class: string;
  Status: string;
  TaxType?: string;
  BankAccountType?: string;
  CurrencyCode?: string;
  UpdatedDateUTC: string;
}

interface JournalLine {
  code: string;
  net: number;
  tax?: number;
}

export function generateDemo(opts: DemoOptions): DemoOutput {
  const rng = new Rng(opts.seed ?? 20_240_601);
  const scale = opts.scale ?? 1;
  const asOf = dayOf(opts.asOf);
  const start = asOf - 3 * 365;
  const progress = opts.onProgress ?? (() => {});
  const orgName = opts.name ?? 'Harbour & Vine Supplies';
  const profile = opts.profile ?? WHOLESALER;
  /** Overheads (rent, staff, utilities, drawings) grow with the business, less than in proportion. */
  const size = 0.4 + 0.6 * scale;
  const sized = (cents: number) => Math.round(cents * size);

  // ---------------------------------------------------------------- accounts
  const accounts: Account[] = [];
  const byCode = new Map<string, Account>();
  const account = (Code: string, Name: string, Type: string, Class: string, extra: Partial<Account> = {}) => {
    const a: Account = { AccountID: rng.guid(), Code, Name, Type, Class, Status: 'ACTIVE', UpdatedDateUTC: msStamp(start - 30), ...extra };
    accounts.push(a);
    byCode.set(Code, a);
    return a;
  };
  const cheque = account('090', 'Business Cheque Account', 'BANK', 'ASSET', { BankAccountType: 'BANK', CurrencyCode: 'AUD' });
  const savings = account('091', 'Business Savings Account', 'BANK', 'ASSET', { BankAccountType: 'BANK', CurrencyCode: 'AUD' });
  const card = account('092', 'Business Credit Card', 'BANK', 'ASSET', { BankAccountType: 'CREDITCARD', CurrencyCode: 'AUD' });
  account('200', 'Sales', 'REVENUE', 'REVENUE', { TaxType: 'OUTPUT' });
  account('270', 'Interest Income', 'REVENUE', 'REVENUE', { TaxType: 'EXEMPTOUTPUT' });
  account('310', 'Cost of Goods Sold', 'DIRECTCOSTS', 'EXPENSE', { TaxType: 'INPUT' });
  account('404', 'Bank Fees', 'EXPENSE', 'EXPENSE', { TaxType: 'EXEMPTEXPENSES' });
  account('412', 'Consulting & Accounting', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' });
  account('429', 'General Expenses', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' });
  account('433', 'Insurance', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' });
  account('445', 'Light, Power, Heating', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' });
  account('469', 'Rent', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' });
  account('477', 'Wages and Salaries', 'EXPENSE', 'EXPENSE', { TaxType: 'BASEXCLUDED' });
  account('478', 'Superannuation', 'EXPENSE', 'EXPENSE', { TaxType: 'BASEXCLUDED' });
  account('485', 'Subscriptions', 'EXPENSE', 'EXPENSE', { TaxType: 'INPUT' });
  account('610', 'Accounts Receivable', 'CURRENT', 'ASSET');
  account('800', 'Accounts Payable', 'CURRLIAB', 'LIABILITY');
  account('820', 'GST', 'CURRLIAB', 'LIABILITY');
  account('825', 'PAYG Withholdings Payable', 'CURRLIAB', 'LIABILITY');
  account('826', 'Superannuation Payable', 'CURRLIAB', 'LIABILITY');
  account('880', "Director's Loan", 'TERMLIAB', 'LIABILITY', { TaxType: 'BASEXCLUDED' });
  account('970', "Owner's Capital", 'EQUITY', 'EQUITY');

  // ---------------------------------------------------------------- ledgers we build
  const contacts: Record<string, unknown>[] = [];
  const invoices: Record<string, unknown>[] = [];
  const creditNotes: Record<string, unknown>[] = [];
  const purchaseOrders: Record<string, unknown>[] = [];
  const payments: Record<string, unknown>[] = [];
  const bankTxns: Record<string, unknown>[] = [];
  const journals: { day: number; sourceId: string; sourceType: string; lines: JournalLine[] }[] = [];
  const bankMoves = new Map<string, { day: number; cents: number; reconciled: boolean; transfer?: boolean }[]>([
    [cheque.AccountID, []],
    [savings.AccountID, []],
    [card.AccountID, []],
  ]);
  const reconciledBy = (day: number) => day <= asOf - 3;
  const moveBank = (acc: Account, day: number, cents: number, transfer = false) =>
    bankMoves.get(acc.AccountID)!.push({ day, cents, reconciled: reconciledBy(day), transfer });

  const contact = (Name: string, kind: { customer?: boolean; supplier?: boolean }, firstDay: number, extra: Record<string, unknown> = {}) => {
    const c = {
      ContactID: rng.guid(),
      ContactStatus: 'ACTIVE',
      Name,
      EmailAddress: `${Name.toLowerCase().replace(/[^a-z0-9]+/g, '.').replace(/^\.|\.$/g, '')}@example.com`,
      IsCustomer: Boolean(kind.customer),
      IsSupplier: Boolean(kind.supplier),
      UpdatedDateUTC: msStamp(firstDay),
      ...extra,
    };
    contacts.push(c);
    return c;
  };

  // Opening balances: set at the end, so that cash on the day is the profile's weeks of outflows.
  const salesByMonth = new Map<string, number>();
  const monthKey = (day: number) => isoDay(day).slice(0, 7);

  // ---------------------------------------------------------------- customers and sales
  const firstWords = ['Blue', 'Harbour', 'Golden', 'Coastal', 'Urban', 'Little', 'Northside', 'Bayside', 'Red', 'Green', 'Old', 'Bright', 'Wild', 'Salt', 'Cedar', 'Copper', 'Silver', 'Ivy', 'Maple', 'Stone'];
  const secondWords = ['Kitchen', 'Cafe', 'Bistro', 'Grocer', 'Deli', 'Bar', 'Catering', 'Bakery', 'Hotel', 'Eatery', 'Larder', 'Pantry', 'Tavern', 'Canteen', 'Providore'];
  const products = [
    { code: 'OIL-5L', desc: 'Extra virgin olive oil 5L', unit: 6450 },
    { code: 'WINE-CASE', desc: 'House red, case of 12', unit: 18900 },
    { code: 'CHEESE-KG', desc: 'Aged cheddar per kg', unit: 3280 },
    { code: 'FLOUR-25', desc: 'Baker\'s flour 25kg', unit: 4100 },
    { code: 'COFFEE-1K', desc: 'Espresso beans 1kg', unit: 3900 },
    { code: 'TOM-CASE', desc: 'Canned tomatoes, case', unit: 5200 },
    { code: 'DELIVERY', desc: 'Delivery', unit: 2500 },
  ];
  const cadences: { label: string; period: number; share: number; base: number }[] = [
    { label: 'WEEKLY', period: 7, share: 0.06, base: 42_000 },
    { label: 'FORTNIGHTLY', period: 14, share: 0.08, base: 68_000 },
    { label: 'MONTHLY', period: 30, share: 0.26, base: 110_000 },
    { label: 'QUARTERLY', period: 91, share: 0.12, base: 240_000 },
    { label: 'ANNUAL', period: 365, share: 0.08, base: 520_000 },
    { label: 'NONE', period: 0, share: 0.4, base: 90_000 },
  ];
  const nCustomers = Math.max(20, Math.round(320 * scale));
  let invoiceSeq = 0;
  let cnSeq = 0;
  const usedNames = new Set<string>();
  const customerName = () => {
    for (;;) {
      const n = `${rng.pick(firstWords)} ${rng.pick(secondWords)}`;
      const name = usedNames.has(n) ? `${n} ${rng.int(2, 99)}` : n;
      if (!usedNames.has(name)) {
        usedNames.add(name);
        return name;
      }
    }
  };

  const addInvoiceLines = (target: number, foreign: boolean) => {
    const lines: Record<string, unknown>[] = [];
    const nLines = rng.int(1, 4);
    let sub = 0;
    let tax = 0;
    for (let i = 0; i < nLines; i++) {
      const p = rng.pick(products);
      const share = Math.max(1, Math.round(target / nLines));
      const qty = Math.max(1, Math.round(share / p.unit));
      const discountRate = rng.chance(0.1) ? rng.pick([5, 10]) : 0;
      const gross = qty * p.unit;
      const line = Math.round((gross * (100 - discountRate)) / 100);
      const lineTax = foreign ? 0 : Math.round(line / 10);
      sub += line;
      tax += lineTax;
      lines.push({
        LineItemID: rng.guid(),
        Description: p.desc,
        Quantity: qty,
        UnitAmount: amt(p.unit),
        ItemCode: p.code,
        AccountCode: '200',
        TaxType: foreign ? 'EXEMPTEXPORT' : 'OUTPUT',
        TaxAmount: amt(lineTax),
        LineAmount: amt(line),
        ...(discountRate ? { DiscountRate: discountRate } : {}),
      });
    }
    return { lines, sub, tax };
  };

  for (let ci = 0; ci < nCustomers; ci++) {
    if (ci % 20 === 0) progress('customers', ci, nCustomers);
    let r = rng.next();
    // Every demo, however small, has a few habitual late payers who order monthly: overdue receivables to chase.
    const chronicLate = ci % 9 === 4;
    const cad = chronicLate ? cadences.find((c) => c.label === 'MONTHLY')! : (cadences.find((c) => (r -= c.share) < 0) ?? cadences[cadences.length - 1]!);
    // A steady book: about half the customers were already buying when the history starts, the rest arrive over
    // the three years, and some leave, so sales grow modestly rather than from nothing.
    const existing = rng.chance(0.5);
    const acquired = existing ? start + rng.int(0, Math.max(1, cad.period || 30)) : start + Math.floor(rng.next() * (asOf - start - 20));
    const churned = cad.period && rng.chance(0.3) ? acquired + rng.int(cad.period * 3, Math.max(cad.period * 3, asOf - acquired)) : Number.POSITIVE_INFINITY;
    const foreign = ci % 97 === 41; // a few export customers invoiced in USD
    const currency = foreign ? 'USD' : 'AUD';
    const rate = foreign ? 0.65 : 1;
    const terms = rng.pick([7, 14, 14, 30, 30, 30]);
    const latePayer = rng.chance(0.14) || chronicLate;
    const orderSize = Math.exp(rng.normal(Math.log(cad.base), 0.45));
    const c = contact(customerName(), { customer: true }, acquired, foreign ? { DefaultCurrency: 'USD' } : {});
    const orderDays: number[] = [];
    if (cad.period === 0) {
      const n = rng.chance(0.6) ? 1 : rng.int(2, 3);
      for (let i = 0; i < n; i++) orderDays.push(i === 0 ? acquired : acquired + rng.int(20, 400));
    } else {
      for (let d = acquired; d <= asOf && d < churned; ) {
        orderDays.push(d);
        d += Math.max(3, Math.round(cad.period * (1 + rng.normal(0, 0.12))));
      }
    }
    for (const day of orderDays) {
      if (day > asOf) continue;
      if (cad.period && rng.chance(0.06)) continue; // a skipped order
      const years = (day - start) / 365;
      const target = Math.max(2_000, Math.round(orderSize * SEASON[monthOf(day)]! * (1 + 0.04 * years) * Math.exp(rng.normal(0, 0.2))));
      const { lines, sub, tax } = addInvoiceLines(target, foreign);
      const total = sub + tax;
      const due = day + terms;
      invoiceSeq++;
      const id = rng.guid();
      const recent = asOf - day <= 10;
      let status = 'AUTHORISED';
      if (recent && rng.chance(0.1)) status = rng.chance(0.6) ? 'DRAFT' : 'SUBMITTED';
      else if (rng.chance(0.01)) status = 'VOIDED';
      const inv: Record<string, unknown> = {
        Type: 'ACCREC',
        InvoiceID: id,
        InvoiceNumber: `INV-${String(invoiceSeq).padStart(5, '0')}`,
        Reference: rng.chance(0.5) ? `PO ${rng.int(1000, 9999)}` : '',
        Contact: { ContactID: c.ContactID, Name: c.Name },
        Date: msDate(day),
        DueDate: msDate(due),
        Status: status,
        LineAmountTypes: 'Exclusive',
        LineItems: lines,
        SubTotal: amt(sub),
        TotalTax: amt(tax),
        Total: amt(total),
        CurrencyCode: currency,
        CurrencyRate: rate,
        UpdatedDateUTC: msStamp(day),
        AmountDue: amt(total),
        AmountPaid: 0,
        AmountCredited: 0,
      };
      invoices.push(inv);
      if (status !== 'AUTHORISED') continue;
      const base = (cents: number) => Math.round(cents / rate);
      salesByMonth.set(monthKey(day), (salesByMonth.get(monthKey(day)) ?? 0) + base(sub));
      journals.push({ day, sourceId: id, sourceType: 'ACCREC', lines: [{ code: '610', net: base(total) }, { code: '200', net: -base(sub) }, ...(tax ? [{ code: '820', net: -base(tax) }] : [])].map(fixRounding(base(total))) });

      // A credit note now and then (mostly allocated to the invoice).
      let credited = 0;
      if (rng.chance(0.025)) {
        const cnSub = Math.round(sub * rng.pick([0.1, 0.2, 0.3]));
        const cnTax = foreign ? 0 : Math.round(cnSub / 10);
        const cnTotal = cnSub + cnTax;
        const allocate = rng.chance(0.75);
        const cnDay = Math.min(asOf, day + rng.int(1, 6));
        cnSeq++;
        const cnId = rng.guid();
        creditNotes.push({
          Type: 'ACCRECCREDIT',
          CreditNoteID: cnId,
          CreditNoteNumber: `CN-${String(cnSeq).padStart(4, '0')}`,
          Reference: `Credit for ${inv.InvoiceNumber as string}`,
          Contact: { ContactID: c.ContactID, Name: c.Name },
          Date: msDate(cnDay),
          DueDate: msDate(cnDay),
          Status: allocate ? 'PAID' : 'AUTHORISED',
          LineAmountTypes: 'Exclusive',
          LineItems: [{ Description: 'Damaged goods credit', Quantity: 1, UnitAmount: amt(cnSub), LineAmount: amt(cnSub), TaxAmount: amt(cnTax), AccountCode: '200', TaxType: foreign ? 'EXEMPTEXPORT' : 'OUTPUT' }],
          SubTotal: amt(cnSub),
          TotalTax: amt(cnTax),
          Total: amt(cnTotal),
          RemainingCredit: allocate ? 0 : amt(cnTotal),
          CurrencyCode: currency,
          CurrencyRate: rate,
          UpdatedDateUTC: msStamp(cnDay),
          Allocations: allocate ? [{ Amount: amt(cnTotal), Date: msDate(cnDay), Invoice: { InvoiceID: id, InvoiceNumber: inv.InvoiceNumber } }] : [],
        });
        journals.push({ day: cnDay, sourceId: cnId, sourceType: 'ACCRECCREDIT', lines: [{ code: '200', net: base(cnSub) }, ...(cnTax ? [{ code: '820', net: base(cnTax) }] : []), { code: '610', net: -base(cnTotal) }].map(fixRounding(-base(cnTotal))) });
        if (allocate) {
          credited = cnTotal;
          inv.AmountCredited = amt(credited);
          inv.AmountDue = amt(total - credited);
          inv.CreditNotes = [{ CreditNoteID: cnId, CreditNoteNumber: `CN-${String(cnSeq).padStart(4, '0')}`, Total: amt(cnTotal), AppliedAmount: amt(cnTotal), Date: msDate(cnDay) }];
        }
      }

      // Payment behaviour: most pay around the due date; habitual late payers 15-60 days late.
      const delay = latePayer ? Math.round(Math.max(12, rng.normal(32, 12))) : Math.round(Math.max(-5, Math.min(9, rng.normal(1, 3))));
      const paidDay = due + delay;
      const owed = total - credited;
      const pay = (payDay: number, cents: number) => {
        const pid = rng.guid();
        payments.push({
          PaymentID: pid,
          Date: msDate(payDay),
          Amount: amt(cents),
          CurrencyRate: rate,
          PaymentType: 'ACCRECPAYMENT',
          Status: 'AUTHORISED',
          IsReconciled: reconciledBy(payDay),
          Reference: inv.InvoiceNumber,
          Account: { AccountID: cheque.AccountID, Code: cheque.Code },
          Invoice: { InvoiceID: id, InvoiceNumber: inv.InvoiceNumber },
          UpdatedDateUTC: msStamp(payDay, 11),
        });
        journals.push({ day: payDay, sourceId: pid, sourceType: 'ACCRECPAYMENT', lines: [{ code: '090', net: base(cents) }, { code: '610', net: -base(cents) }] });
        moveBank(cheque, payDay, base(cents));
      };
      if (paidDay <= asOf) {
        pay(paidDay, owed);
        inv.Status = 'PAID';
        inv.FullyPaidOnDate = msDate(paidDay);
        inv.AmountPaid = amt(owed);
        inv.AmountDue = 0;
        inv.UpdatedDateUTC = msStamp(paidDay, 11);
      } else if (asOf - day > 20 && rng.chance(0.08)) {
        const part = Math.round(owed * rng.pick([0.3, 0.5, 0.6]));
        const partDay = Math.min(asOf - 1, day + rng.int(5, 20));
        pay(partDay, part);
        inv.AmountPaid = amt(part);
        inv.AmountDue = amt(owed - part);
        inv.UpdatedDateUTC = msStamp(partDay, 11);
      }
    }
  }
  progress('customers', nCustomers, nCustomers);

  // An unallocated USD credit note.
  const usdCustomer = contacts.find((c) => c.DefaultCurrency === 'USD');
  if (usdCustomer) {
    cnSeq++;
    const usdCnId = rng.guid();
    creditNotes.push({
      Type: 'ACCRECCREDIT',
      CreditNoteID: usdCnId,
      CreditNoteNumber: `CN-${String(cnSeq).padStart(4, '0')}`,
      Reference: 'Pricing adjustment',
      Contact: { ContactID: usdCustomer.ContactID, Name: usdCustomer.Name },
      Date: msDate(asOf - 12),
      Status: 'AUTHORISED',
      LineAmountTypes: 'Exclusive',
      LineItems: [{ Description: 'Pricing adjustment', Quantity: 1, UnitAmount: 450, LineAmount: 450, TaxAmount: 0, AccountCode: '200', TaxType: 'EXEMPTEXPORT' }],
      SubTotal: 450,
      TotalTax: 0,
      Total: 450,
      RemainingCredit: 450,
      CurrencyCode: 'USD',
      CurrencyRate: 0.65,
      UpdatedDateUTC: msStamp(asOf - 12),
      Allocations: [],
    });
    const inBase = Math.round(45_000 / 0.65);
    journals.push({ day: asOf - 12, sourceId: usdCnId, sourceType: 'ACCRECCREDIT', lines: [{ code: '200', net: inBase }, { code: '610', net: -inBase }] });
  }

  // ---------------------------------------------------------------- suppliers, bills, purchase orders
  let billSeq = 0;
  let poSeq = 0;
  const bill = (
    supplier: { ContactID: string; Name: string },
    day: number,
    dueDays: number,
    lines: { desc: string; code: string; cents: number; taxFree?: boolean }[],
    payFrom: Account,
    opts2: { reference?: string; payDelay?: number; unpaid?: boolean } = {},
  ) => {
    const id = rng.guid();
    billSeq++;
    let sub = 0;
    let tax = 0;
    const LineItems = lines.map((l) => {
      const t = l.taxFree ? 0 : Math.round(l.cents / 10);
      sub += l.cents;
      tax += t;
      return {
        LineItemID: rng.guid(),
        Description: l.desc,
        Quantity: 1,
        UnitAmount: amt(l.cents),
        LineAmount: amt(l.cents),
        TaxAmount: amt(t),
        AccountCode: l.code,
        TaxType: l.taxFree ? 'BASEXCLUDED' : 'INPUT',
      };
    });
    const total = sub + tax;
    const due = day + dueDays;
    const b: Record<string, unknown> = {
      Type: 'ACCPAY',
      InvoiceID: id,
      InvoiceNumber: `BILL-${String(billSeq).padStart(5, '0')}`,
      Reference: opts2.reference ?? '',
      Contact: { ContactID: supplier.ContactID, Name: supplier.Name },
      Date: msDate(day),
      DueDate: msDate(due),
      Status: 'AUTHORISED',
      LineAmountTypes: 'Exclusive',
      LineItems,
      SubTotal: amt(sub),
      TotalTax: amt(tax),
      Total: amt(total),
      CurrencyCode: 'AUD',
      CurrencyRate: 1,
      AmountDue: amt(total),
      AmountPaid: 0,
      AmountCredited: 0,
      UpdatedDateUTC: msStamp(day),
    };
    invoices.push(b);
    journals.push({
      day,
      sourceId: id,
      sourceType: 'ACCPAY',
      lines: [...lines.map((l) => ({ code: l.code, net: l.cents })), ...(tax ? [{ code: '820', net: tax }] : []), { code: '800', net: -total }],
    });
    const paidDay = due + (opts2.payDelay ?? rng.int(-2, 1));
    if (!opts2.unpaid && paidDay <= asOf) {
      const pid = rng.guid();
      payments.push({
        PaymentID: pid,
        Date: msDate(paidDay),
        Amount: amt(total),
        CurrencyRate: 1,
        PaymentType: 'ACCPAYPAYMENT',
        Status: 'AUTHORISED',
        IsReconciled: reconciledBy(paidDay),
        Reference: b.InvoiceNumber,
        Account: { AccountID: payFrom.AccountID, Code: payFrom.Code },
        Invoice: { InvoiceID: id, InvoiceNumber: b.InvoiceNumber },
        UpdatedDateUTC: msStamp(paidDay, 12),
      });
      journals.push({ day: paidDay, sourceId: pid, sourceType: 'ACCPAYPAYMENT', lines: [{ code: '800', net: total }, { code: payFrom.Code, net: -total }] });
      moveBank(payFrom, paidDay, -total);
      b.Status = 'PAID';
      b.FullyPaidOnDate = msDate(paidDay);
      b.AmountPaid = amt(total);
      b.AmountDue = 0;
      b.UpdatedDateUTC = msStamp(paidDay, 12);
    }
    return { id, total, bill: b };
  };

  const landlord = contact('Harbourside Property Trust', { supplier: true }, start);
  const energy = contact('Origin Energy', { supplier: true }, start);
  const insurer = contact('QBE Insurance', { supplier: true }, start);
  const accountant = contact('Smith & Co Chartered Accountants', { supplier: true }, start);
  const saas = [
    { c: contact('Xero Australia', { supplier: true }, start), cents: 7_000 },
    { c: contact('CloudPOS Pty Ltd', { supplier: true }, start), cents: 14_900 },
    { c: contact('Google Workspace', { supplier: true }, start), cents: 4_200 },
  ];
  const stockSuppliers = Array.from({ length: 8 }, (_, i) =>
    contact(`${['Riverina', 'Barossa', 'Hunter', 'Yarra', 'Margaret River', 'Tamar', 'Adelaide Hills', 'Mudgee'][i]} ${['Produce Co', 'Wholesale', 'Growers', 'Foods', 'Trading'][i % 5]}`, { supplier: true }, start),
  );
  const smallSuppliers = Array.from({ length: Math.max(10, Math.round(55 * scale)) }, (_, i) =>
    contact(`${rng.pick(['Ace', 'Metro', 'City', 'Prime', 'Swift', 'Allied', 'Southern', 'Pacific'])} ${rng.pick(['Cleaning', 'Plumbing', 'Electrical', 'Couriers', 'Packaging', 'Signage', 'Printing', 'Repairs'])} ${i + 1}`, { supplier: true }, start + rng.int(0, 900)),
  );

  for (let d = start; d <= asOf + 40; d++) {
    const date = new Date(d * DAY_MS);
    const dom = date.getUTCDate();
    const month = date.getUTCMonth();
    if (d > asOf) break;
    if (dom === 1) {
      bill(landlord, d, 0, [{ desc: `Rent ${isoDay(d).slice(0, 7)}`, code: '469', cents: sized(420_000) }], cheque, { payDelay: 0 });
      for (const s of saas) bill(s.c, d, 0, [{ desc: 'Monthly subscription', code: '485', cents: s.cents }], card, { payDelay: 0 });
      if (month % 3 === 0) bill(insurer, d, 30, [{ desc: 'Business insurance, quarterly', code: '433', cents: sized(185_000) }], cheque);
      if (month === 7) bill(accountant, d, 30, [{ desc: 'Annual accounts and tax return', code: '412', cents: 330_000 }], cheque);
    }
    if (dom === 12) {
      const winter = [5, 6, 7].includes(month) ? 1.5 : 1;
      bill(energy, d, 14, [{ desc: 'Electricity', code: '445', cents: sized(Math.round(rng.int(38_000, 52_000) * winter)) }], cheque);
    }
  }
  progress('recurring bills', 1, 1);

  // Stock purchases, each preceded by a purchase order it references: the profile's share of the sales of the
  // month the stock is bought in (the previous month's while the current one is incomplete), over the suppliers.
  const monthSales = (day: number) => {
    const k = monthKey(day);
    const v = k === monthKey(asOf) ? salesByMonth.get(monthKey(day - 30)) : salesByMonth.get(k);
    return v ?? 0;
  };
  for (const s of stockSuppliers) {
    for (let d = start + rng.int(0, 14), gap = rng.int(10, 24); d <= asOf; d += gap, gap = rng.int(10, 24)) {
      const share = (profile.cogsRatio * monthSales(d) * gap) / 30 / stockSuppliers.length;
      const cents = Math.max(20_000, Math.round(share * Math.exp(rng.normal(0, 0.15))));
      const poDay = d - rng.int(5, 12);
      poSeq++;
      const poNumber = `PO-${String(poSeq).padStart(4, '0')}`;
      const poTax = Math.round(cents / 10);
      const { bill: b } = bill(s, d, 30, [{ desc: 'Stock', code: '310', cents }], cheque, { reference: poNumber });
      purchaseOrders.push(po(poNumber, s, poDay, d, cents, poTax, 'BILLED', b.UpdatedDateUTC as string));
    }
  }
  progress('stock purchases', 1, 1);

  // Open purchase orders near today: matched by reference, by contact and amount, and unmatched.
  const openPo = (s: { ContactID: string; Name: string }, status: string, cents: number, delivery: number) => {
    poSeq++;
    const n = `PO-${String(poSeq).padStart(4, '0')}`;
    purchaseOrders.push(po(n, s, asOf - rng.int(2, 12), delivery, cents, Math.round(cents / 10), status, msStamp(asOf - 1)));
    return n;
  };
  for (let i = 0; i < 2; i++) {
    const s = stockSuppliers[i]!;
    const cents = 180_000 + i * 35_000;
    const n = openPo(s, 'AUTHORISED', cents, asOf + 7);
    bill(s, asOf - 1, 30, [{ desc: 'Stock', code: '310', cents }], cheque, { reference: n, unpaid: true });
  }
  for (let i = 2; i < 4; i++) {
    const s = stockSuppliers[i]!;
    const cents = 150_000 + i * 21_000;
    openPo(s, 'AUTHORISED', cents, asOf + 10);
    bill(s, asOf - 2, 30, [{ desc: 'Stock delivery', code: '310', cents }], cheque, { unpaid: true });
  }
  for (let i = 4; i < 7; i++) openPo(stockSuppliers[i]!, 'AUTHORISED', 200_000 + i * 13_000, asOf + 7 * (i - 2));
  openPo(stockSuppliers[7]!, 'DRAFT', 99_000, asOf + 30);
  openPo(stockSuppliers[0]!, 'SUBMITTED', 120_000, asOf + 21);
  openPo(stockSuppliers[1]!, 'DELETED', 75_000, asOf + 14);

  function po(number: string, s: { ContactID: string; Name: string }, day: number, delivery: number, sub: number, tax: number, status: string, updated: string) {
    return {
      PurchaseOrderID: rng.guid(),
      PurchaseOrderNumber: number,
      Reference: number,
      Contact: { ContactID: s.ContactID, Name: s.Name },
      Date: msDate(day),
      DeliveryDate: msDate(delivery),
      ExpectedArrivalDate: msDate(delivery),
      Status: status,
      LineAmountTypes: 'Exclusive',
      LineItems: [{ Description: 'Stock', Quantity: 1, UnitAmount: amt(sub), LineAmount: amt(sub), TaxAmount: amt(tax), AccountCode: '310' }],
      SubTotal: amt(sub),
      TotalTax: amt(tax),
      Total: amt(sub + tax),
      CurrencyCode: 'AUD',
      UpdatedDateUTC: updated,
    };
  }

  // Occasional bills from small suppliers; a few overdue and unpaid.
  for (const s of smallSuppliers) {
    const n = rng.int(2, 14);
    for (let i = 0; i < n; i++) {
      const d = start + rng.int(0, asOf - start);
      bill(s, d, rng.pick([7, 14, 30]), [{ desc: 'Services', code: '429', cents: rng.int(8_000, 160_000) }], cheque, {
        unpaid: asOf - d < 60 && rng.chance(0.1),
      });
    }
  }
  // A supplier credit note, allocated.
  {
    const s = stockSuppliers[0]!;
    const cnId = rng.guid();
    creditNotes.push({
      Type: 'ACCPAYCREDIT',
      CreditNoteID: cnId,
      CreditNoteNumber: 'SCN-0001',
      Contact: { ContactID: s.ContactID, Name: s.Name },
      Date: msDate(asOf - 40),
      Status: 'AUTHORISED',
      LineAmountTypes: 'Exclusive',
      LineItems: [{ Description: 'Returned stock', Quantity: 1, UnitAmount: 250, LineAmount: 250, TaxAmount: 25, AccountCode: '310', TaxType: 'INPUT' }],
      SubTotal: 250,
      TotalTax: 25,
      Total: 275,
      RemainingCredit: 275,
      CurrencyCode: 'AUD',
      CurrencyRate: 1,
      UpdatedDateUTC: msStamp(asOf - 40),
      Allocations: [],
    });
    journals.push({ day: asOf - 40, sourceId: cnId, sourceType: 'ACCPAYCREDIT', lines: [{ code: '800', net: 27_500 }, { code: '310', net: -25_000 }, { code: '820', net: -2_500 }] });
  }
  progress('bills', 1, 1);

  // ---------------------------------------------------------------- payroll, director, bank-only movements
  const employees = Array.from({ length: Math.max(3, Math.round(6 * scale)) }, (_, i) =>
    contact(['Mia Chen', 'Liam Walker', 'Ava Nguyen', 'Noah Patel', 'Zoe Murphy', 'Jack Rossi'][i]!, {}, start),
  );
  const ato = contact('Australian Taxation Office', { supplier: true }, start);
  const superFund = contact('AustralianSuper (clearing house)', { supplier: true }, start);
  const director = contact('Jane Hart (Director)', {}, start);
  const salaries = employees.map(() => rng.int(210_000, 340_000));
  /** Australian BAS quarters of the financial year: Q1 Jul-Sep, Q2 Oct-Dec, Q3 Jan-Mar, Q4 Apr-Jun (with the year). */
  const quarterOf = (day: number) => {
    const dt = new Date(day * DAY_MS);
    const m = dt.getUTCMonth();
    const fy = m >= 6 ? dt.getUTCFullYear() + 1 : dt.getUTCFullYear();
    return `FY${fy}-Q${m >= 6 ? Math.floor((m - 6) / 3) + 1 : Math.floor((m + 6) / 3) + 1}`;
  };
  const paygByQuarter = new Map<string, number>();
  const superByQuarter = new Map<string, number>();
  const bankTxn = (
    acc: Account,
    type: string,
    day: number,
    who: { ContactID: string; Name: string } | null,
    code: string,
    cents: number,
    desc: string,
    post = true,
    sourceType?: string,
  ) => {
    const id = rng.guid();
    const tax = 0; // wages, drawings, fees, interest and transfers carry no GST
    const total = cents + tax;
    const receive = type.startsWith('RECEIVE');
    bankTxns.push({
      BankTransactionID: id,
      Type: type,
      ...(who ? { Contact: { ContactID: who.ContactID, Name: who.Name } } : {}),
      BankAccount: { AccountID: acc.AccountID, Code: acc.Code, Name: acc.Name },
      Date: msDate(day),
      Status: 'AUTHORISED',
      IsReconciled: reconciledBy(day),
      Reference: desc,
      CurrencyCode: 'AUD',
      LineAmountTypes: 'Exclusive',
      LineItems: [{ Description: desc, Quantity: 1, UnitAmount: amt(cents), LineAmount: amt(cents), TaxAmount: amt(tax), AccountCode: code }],
      SubTotal: amt(cents),
      TotalTax: amt(tax),
      Total: amt(total),
      UpdatedDateUTC: msStamp(day, 9),
    });
    const sign = receive ? 1 : -1;
    moveBank(acc, day, sign * total, type.endsWith('TRANSFER'));
    // A transfer is two bank transactions but one journal.
    if (!post) return;
    journals.push({ day, sourceId: id, sourceType: sourceType ?? (receive ? 'CASHREC' : 'CASHPAID'), lines: [{ code: acc.Code, net: sign * total }, { code, net: -sign * cents }, ...(tax ? [{ code: '820', net: -sign * tax }] : [])] });
  };
  bankTxn(cheque, 'RECEIVE', start + 3, director, '880', 2_000_000, "Director's loan");
  for (let d = start; d <= asOf; d++) {
    const date = new Date(d * DAY_MS);
    const dom = date.getUTCDate();
    if ((d - start) % 14 === 4) {
      employees.forEach((e, i) => bankTxn(cheque, 'SPEND', d, e, '477', salaries[i]!, 'Fortnightly pay'));
      // On pay day: PAYG withheld from the gross (paid to the ATO with the BAS) and the super guarantee (paid quarterly).
      const net = salaries.reduce((a, c) => a + c, 0);
      const payg = Math.round(net * 0.25);
      const sg = Math.round((net + payg) * 0.115);
      journals.push({ day: d, sourceId: rng.guid(), sourceType: 'MANJOURNAL', lines: [{ code: '477', net: payg }, { code: '825', net: -payg }] });
      journals.push({ day: d, sourceId: rng.guid(), sourceType: 'MANJOURNAL', lines: [{ code: '478', net: sg }, { code: '826', net: -sg }] });
      paygByQuarter.set(quarterOf(d), (paygByQuarter.get(quarterOf(d)) ?? 0) + payg);
      superByQuarter.set(quarterOf(d), (superByQuarter.get(quarterOf(d)) ?? 0) + sg);
    }
    // The BAS (GST and PAYG withheld of the quarter) on 28 Oct, 28 Feb, 28 Apr, 28 Jul; super on 28 Jan, Apr, Jul, Oct.
    if (dom === 28) {
      const month = date.getUTCMonth();
      const basFor = { 9: 'Q3', 1: 'Q4', 3: 'Q1', 6: 'Q2' } as Record<number, string>;
      if (basFor[month]) {
        const q = quarterOf(d - (month === 1 ? 59 : 28));
        const gst = -journals.filter((j) => j.sourceType !== 'BAS' && quarterOf(j.day) === q).flatMap((j) => j.lines).filter((l) => l.code === '820').reduce((a, l) => a + l.net, 0);
        if (gst > 0) bankTxn(cheque, 'SPEND', d, ato, '820', gst, `BAS ${q}: GST`, true, 'BAS');
        else if (gst < 0) bankTxn(cheque, 'RECEIVE', d, ato, '820', -gst, `BAS ${q}: GST refund`, true, 'BAS');
        const payg = paygByQuarter.get(q) ?? 0;
        if (payg > 0) bankTxn(cheque, 'SPEND', d, ato, '825', payg, `BAS ${q}: PAYG withheld`, true, 'BAS');
      }
      if ([0, 3, 6, 9].includes(month)) {
        const q = quarterOf(d - 28);
        const sg = superByQuarter.get(q) ?? 0;
        if (sg > 0) bankTxn(cheque, 'SPEND', d, superFund, '826', sg, `Super guarantee ${q}`);
      }
    }
    if (dom === 15) bankTxn(cheque, 'SPEND', d, director, '880', sized(300_000), "Director's drawings");
    if (dom === 28) {
      bankTxn(cheque, 'SPEND', d, null, '404', 2_500, 'Monthly account fee');
      bankTxn(savings, 'RECEIVE', d, null, '270', rng.int(4_000, 9_000), 'Interest');
      // Transfers: savings top-up, and the credit card repayment.
      const transfer = (from: Account, to: Account, cents: number, desc: string) => {
        if (cents <= 0) return;
        bankTxn(from, 'SPEND-TRANSFER', d, null, to.Code, cents, desc);
        bankTxn(to, 'RECEIVE-TRANSFER', d, null, from.Code, cents, desc, false);
      };
      transfer(cheque, savings, sized(200_000), 'Transfer to savings');
      const cardOwing = -bankMoves.get(card.AccountID)!.reduce((a, m) => a + (m.day <= d ? m.cents : 0), 0);
      transfer(cheque, card, cardOwing, 'Credit card repayment');
    }
  }
  progress('bank', 1, 1);

  // ---------------------------------------------------------------- credits and schedules
  // Drawn last, so that the rest of the generated books do not depend on them.
  account('835', 'Income in Advance', 'CURRLIAB', 'LIABILITY', { TaxType: 'BASEXCLUDED' });
  const overpayments: Record<string, unknown>[] = [];
  const prepayments: Record<string, unknown>[] = [];
  const repeatingInvoices: Record<string, unknown>[] = [];
  // A customer paid more than it owed (kept as a credit on Accounts Receivable: Xero's overpayment), and
  // another paid a deposit before its next order (a prepayment, posted to Income in Advance).
  const openAud = invoices
    .filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && (i.CurrencyCode ?? 'AUD') === 'AUD' && Number(i.AmountDue) > 0)
    .sort((a, b) => String(a.InvoiceID).localeCompare(String(b.InvoiceID)));
  const credit = (kind: 'Overpayment' | 'Prepayment', inv: Record<string, unknown> | undefined, day: number, cents: number, code: string) => {
    if (!inv || cents <= 0) return;
    const who = inv.Contact as { ContactID: string; Name: string };
    const id = rng.guid();
    const type = `RECEIVE-${kind.toUpperCase()}`;
    bankTxn(cheque, type, day, who, code, cents, `${kind} ${who.Name}`, true, kind === 'Overpayment' ? 'AROVERPAYMENT' : 'ARPREPAYMENT');
    (kind === 'Overpayment' ? overpayments : prepayments).push({
      [`${kind}ID`]: id,
      Type: type,
      Contact: { ContactID: who.ContactID, Name: who.Name },
      Date: msDate(day),
      Status: 'AUTHORISED',
      LineAmountTypes: 'NoTax',
      LineItems: [{ Description: `${kind} received`, Quantity: 1, UnitAmount: amt(cents), LineAmount: amt(cents), TaxAmount: 0, AccountCode: code }],
      SubTotal: amt(cents),
      TotalTax: 0,
      Total: amt(cents),
      RemainingCredit: amt(cents),
      Allocations: [],
      Payments: [],
      CurrencyCode: 'AUD',
      CurrencyRate: 1,
      UpdatedDateUTC: msStamp(day, 10),
    });
  };
  const opInvoice = openAud[0];
  credit('Overpayment', opInvoice, asOf - 20, Math.round(Number(opInvoice?.AmountDue ?? 0) * 100 * 0.35), '610');
  const ppInvoice = openAud.find((i) => (i.Contact as { ContactID: string }).ContactID !== (opInvoice?.Contact as { ContactID: string } | undefined)?.ContactID);
  credit('Prepayment', ppInvoice, asOf - 9, sized(150_000), '835');
  // The rent is a repeating bill in the ledger: its next documents are known, not guessed.
  const rentNow = sized(420_000);
  const firstOfNext = (() => {
    const dt = new Date(asOf * DAY_MS);
    return Math.floor(Date.UTC(dt.getUTCFullYear(), dt.getUTCMonth() + 1, 1) / DAY_MS);
  })();
  const firstRent = (() => {
    const dt = new Date(start * DAY_MS);
    return dt.getUTCDate() === 1 ? start : Math.floor(Date.UTC(dt.getUTCFullYear(), dt.getUTCMonth() + 1, 1) / DAY_MS);
  })();
  repeatingInvoices.push({
    RepeatingInvoiceID: rng.guid(),
    Type: 'ACCPAY',
    Reference: 'Rent',
    Contact: { ContactID: landlord.ContactID, Name: landlord.Name },
    Status: 'AUTHORISED',
    Schedule: {
      Period: 1,
      Unit: 'MONTHLY',
      DueDate: 0,
      DueDateType: 'DAYSAFTERBILLDATE',
      StartDate: msDate(firstRent),
      NextScheduledDate: msDate(firstOfNext),
    },
    LineAmountTypes: 'Exclusive',
    LineItems: [{ Description: 'Rent [Month Year]', Quantity: 1, UnitAmount: amt(rentNow), LineAmount: amt(rentNow), TaxAmount: amt(Math.round(rentNow / 10)), AccountCode: '469', TaxType: 'INPUT' }],
    SubTotal: amt(rentNow),
    TotalTax: amt(Math.round(rentNow / 10)),
    Total: amt(rentNow + Math.round(rentNow / 10)),
    CurrencyCode: 'AUD',
  });
  progress('credits and schedules', 1, 1);

  // ---------------------------------------------------------------- cash on the day, and the opening balances
  const allMoves = [...bankMoves.values()].flat().filter((m) => m.day <= asOf);
  /** Average weekly money out over the last 13 weeks (transfers between own accounts aside). */
  const weeklyOut = -allMoves.filter((m) => m.day > asOf - 91 && m.cents < 0 && !m.transfer).reduce((a, m) => a + m.cents, 0) / 13;
  if (profile.lumpyBill) {
    const lb = profile.lumpyBill;
    const s = contact(lb.supplier, { supplier: true }, asOf - 400);
    bill(s, asOf - 6, lb.inDays + 6, [{ desc: lb.desc, code: '310', cents: Math.round(lb.weeks * weeklyOut) }], cheque, { unpaid: true, reference: 'SHIPMENT' });
  }
  // The opening balances make cash on the day the profile's weeks of outflows; savings hold a fixed reserve.
  const savingsOpening = sized(4_000_000);
  const target = Math.round(profile.cashWeeks * weeklyOut);
  let netMoves = allMoves.reduce((a, m) => a + m.cents, 0);
  // A profitable business would otherwise have started with less than nothing: its owners took the profits out
  // as quarterly dividends, so that it started with a few weeks of outflows.
  const floor = Math.round(7 * weeklyOut);
  if (target - savingsOpening - netMoves < floor) {
    const surplus = floor - (target - savingsOpening - netMoves);
    const days: number[] = [];
    for (let d = start + 90; d <= asOf - 30; d++) {
      const dt = new Date(d * DAY_MS);
      if (dt.getUTCDate() === 20 && dt.getUTCMonth() % 3 === 0) days.push(d);
    }
    let left = surplus;
    days.forEach((d, i) => {
      const cents = i === days.length - 1 ? left : Math.round(surplus / days.length);
      left -= cents;
      bankTxn(cheque, 'SPEND', d, director, '970', cents, 'Dividend');
    });
    netMoves -= surplus;
  }
  const chequeOpening = target - savingsOpening - netMoves;
  journals.push({ day: start - 1, sourceId: rng.guid(), sourceType: 'MANJOURNAL', lines: [{ code: '090', net: chequeOpening }, { code: '091', net: savingsOpening }, { code: '970', net: -(chequeOpening + savingsOpening) }] });
  moveBank(cheque, start - 1, chequeOpening);
  moveBank(savings, start - 1, savingsOpening);

  // ---------------------------------------------------------------- journals, bank summary, organisation
  journals.sort((a, b) => a.day - b.day);
  const journalBodies = journals.map((j, i) => ({
    JournalID: rng.guid(),
    JournalDate: msDate(j.day),
    JournalNumber: i + 1,
    CreatedDateUTC: msStamp(j.day, 13),
    SourceID: j.sourceId,
    SourceType: j.sourceType,
    JournalLines: j.lines.map((l) => {
      const acc = byCode.get(l.code)!;
      return {
        JournalLineID: rng.guid(),
        AccountID: acc.AccountID,
        AccountCode: acc.Code,
        AccountType: acc.Type,
        AccountName: acc.Name,
        NetAmount: amt(l.net),
        GrossAmount: amt(l.net),
        TaxAmount: amt(l.tax ?? 0),
      };
    }),
  }));

  const summaryRows = [cheque, savings, card].map((acc) => {
    const moves = bankMoves.get(acc.AccountID)!.filter((m) => m.day <= asOf && m.reconciled);
    const opening = moves.filter((m) => m.day < start).reduce((a, m) => a + m.cents, 0);
    const received = moves.filter((m) => m.day >= start && m.cents > 0).reduce((a, m) => a + m.cents, 0);
    const spent = moves.filter((m) => m.day >= start && m.cents < 0).reduce((a, m) => a - m.cents, 0);
    const attrs = [{ Id: 'accountID', Value: acc.AccountID }];
    const cell = (v: string) => ({ Value: v, Attributes: attrs });
    return {
      RowType: 'Row',
      Cells: [cell(acc.Name), cell((opening / 100).toFixed(2)), cell((received / 100).toFixed(2)), cell((spent / 100).toFixed(2)), cell(((opening + received - spent) / 100).toFixed(2))],
    };
  });
  const bankSummary = {
    Reports: [
      {
        ReportID: 'BankSummary',
        ReportName: 'Bank Summary',
        ReportType: 'BankSummary',
        ReportTitles: ['Bank Summary', orgName, `From ${isoDay(start)} to ${isoDay(asOf)}`],
        ReportDate: isoDay(asOf),
        UpdatedDateUTC: msStamp(asOf, 6),
        Rows: [
          { RowType: 'Header', Cells: [{ Value: 'Bank Accounts' }, { Value: 'Opening Balance' }, { Value: 'Cash Received' }, { Value: 'Cash Spent' }, { Value: 'Closing Balance' }] },
          { RowType: 'Section', Title: '', Rows: summaryRows },
        ],
      },
    ],
  };

  const organisation = {
    Organisations: [
      {
        OrganisationID: rng.guid(),
        Name: orgName,
        LegalName: `${orgName} Pty Ltd`,
        BaseCurrency: 'AUD',
        CountryCode: 'AU',
        FinancialYearEndDay: 30,
        FinancialYearEndMonth: 6,
        Timezone: 'AUSEASTERNSTANDARDTIME',
        OrganisationType: 'COMPANY',
        CreatedDateUTC: msStamp(start - 60),
      },
    ],
  };

  const files: XeroFiles = {
    'Organisation.json': organisation,
    'Accounts.json': { Accounts: accounts },
    'Contacts.json': pages('Contacts', contacts),
    'Invoices.json': pages('Invoices', invoices),
    'CreditNotes.json': { CreditNotes: creditNotes },
    'Overpayments.json': { Overpayments: overpayments },
    'Prepayments.json': { Prepayments: prepayments },
    'RepeatingInvoices.json': { RepeatingInvoices: repeatingInvoices },
    'PurchaseOrders.json': pages('PurchaseOrders', purchaseOrders),
    'Payments.json': pages('Payments', payments),
    'BankTransactions.json': pages('BankTransactions', bankTxns),
    'BankSummary.json': bankSummary,
    'Journals.json': pages('Journals', journalBodies),
  };
  progress('done', 1, 1);
  return {
    files,
    sensitive: { contactIds: [...employees, director].map((c) => c.ContactID), accountCodes: ['477', '880'] },
    counts: {
      contacts: contacts.length,
      invoices: invoices.filter((i) => i.Type === 'ACCREC').length,
      bills: invoices.filter((i) => i.Type === 'ACCPAY').length,
      creditNotes: creditNotes.length,
      overpayments: overpayments.length,
      prepayments: prepayments.length,
      repeatingInvoices: repeatingInvoices.length,
      purchaseOrders: purchaseOrders.length,
      payments: payments.length,
      bankTransactions: bankTxns.length,
      journals: journalBodies.length,
    },
  };
}

/** Records as Xero pages them: page bodies of `size` records ({ [key]: [...] }), at least one. */
export function pages<T>(key: string, records: T[], size = 100): Record<string, T[]>[] {
  const out: Record<string, T[]>[] = [];
  for (let i = 0; i < records.length; i += size) out.push({ [key]: records.slice(i, i + size) });
  return out.length ? out : [{ [key]: [] }];
}

/** Puts any rounding difference of a converted journal onto its first line so it sums to zero. */
function fixRounding(_first: number) {
  return (line: JournalLine, index: number, all: JournalLine[]): JournalLine => {
    if (index !== 0) return line;
    const rest = all.slice(1).reduce((a, l) => a + l.net, 0);
    return { ...line, net: -rest };
  };
}

export function writeXeroFiles(dir: string, files: XeroFiles): string[] {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, body] of Object.entries(files)) {
    writeFileSync(join(dir, name), JSON.stringify(body));
    written.push(name);
  }
  return written;
}
