/**
 * Customers and their sales: invoices, the credit notes now and then raised
 * against them, and the payments (on time, late, or in part) that settle them.
 */
import { addContact, moveBank, reconciledBy, type DemoContext, type JournalLine, type Party, type XeroRecord } from './context.js';
import type { CustomerTruth } from './types.js';
import type { Rng } from '../domain/random.js';
import { amt, monthKey, monthOf, msDate, msStamp } from './format.js';

const SEASON = [0.75, 0.85, 0.95, 1.0, 1.0, 0.95, 0.9, 0.95, 1.0, 1.05, 1.15, 1.4];
const FIRST_WORDS = ['Blue', 'Harbour', 'Golden', 'Coastal', 'Urban', 'Little', 'Northside', 'Bayside', 'Red', 'Green', 'Old', 'Bright', 'Wild', 'Salt', 'Cedar', 'Copper', 'Silver', 'Ivy', 'Maple', 'Stone'];
const SECOND_WORDS = ['Kitchen', 'Cafe', 'Bistro', 'Grocer', 'Deli', 'Bar', 'Catering', 'Bakery', 'Hotel', 'Eatery', 'Larder', 'Pantry', 'Tavern', 'Canteen', 'Providore'];
const PRODUCTS = [
  { code: 'OIL-5L', desc: 'Extra virgin olive oil 5L', unit: 6450 },
  { code: 'WINE-CASE', desc: 'House red, case of 12', unit: 18900 },
  { code: 'CHEESE-KG', desc: 'Aged cheddar per kg', unit: 3280 },
  { code: 'FLOUR-25', desc: 'Baker\'s flour 25kg', unit: 4100 },
  { code: 'COFFEE-1K', desc: 'Espresso beans 1kg', unit: 3900 },
  { code: 'TOM-CASE', desc: 'Canned tomatoes, case', unit: 5200 },
  { code: 'DELIVERY', desc: 'Delivery', unit: 2500 },
];
interface Cadence {
  label: string;
  period: number;
  share: number;
  base: number;
}
const CADENCES: Cadence[] = [
  { label: 'WEEKLY', period: 7, share: 0.06, base: 42_000 },
  { label: 'FORTNIGHTLY', period: 14, share: 0.08, base: 68_000 },
  { label: 'MONTHLY', period: 30, share: 0.26, base: 110_000 },
  { label: 'QUARTERLY', period: 91, share: 0.12, base: 240_000 },
  { label: 'ANNUAL', period: 365, share: 0.08, base: 520_000 },
  { label: 'NONE', period: 0, share: 0.4, base: 90_000 },
];

/** A customer's habits, drawn once. */
interface Customer {
  contact: Party;
  cad: Cadence;
  acquired: number;
  churned: number;
  foreign: boolean;
  currency: string;
  rate: number;
  terms: number;
  latePayer: boolean;
  orderSize: number;
}

/** An authorised sales invoice, as its credit note and payments need it. */
interface Sale {
  inv: XeroRecord;
  id: string;
  day: number;
  due: number;
  sub: number;
  total: number;
}

/** Cents in the invoice's currency to cents in AUD. */
const toBase = (c: Customer, cents: number) => Math.round(cents / c.rate);

/*
 * The draws of one order and its payment, shared with bench/oracle.ts (which
 * draws the demo's futures from each customer's true habits with them).
 */
/** The chance a customer with a cadence skips an order. */
export const SKIPPED = 0.06;
/** The chance an (older) invoice is voided. */
export const VOIDED = 0.01;
/** The chance an invoice gets a credit note; its share of the invoice; the chance it is allocated to it. */
export const CREDITED = 0.025;
export const CREDIT_SHARES = [0.1, 0.2, 0.3];
export const CREDIT_ALLOCATED = 0.75;

/** Days from one order of a cadence to the next. */
export function cadenceGap(rng: Rng, period: number): number {
  return Math.max(3, Math.round(period * (1 + rng.normal(0, 0.12))));
}

/** An order on `day` per unit of a customer's typical order, before its noise: the season and 4% a year of growth since `start`. */
export function orderScale(day: number, start: number): number {
  return SEASON[monthOf(day)]! * (1 + 0.04 * ((day - start) / 365));
}

/** What an order on `day` is for (cents of the customer's currency): its typical order, the season, 4% a year of growth since `start`, and noise. */
export function orderTarget(rng: Rng, orderSize: number, day: number, start: number): number {
  return Math.max(2_000, Math.round(orderSize * orderScale(day, start) * Math.exp(rng.normal(0, 0.2))));
}

/** Days after its due date an invoice is paid: most around it; habitual late payers 12-60 days late. */
export function paymentDelay(rng: Rng, latePayer: boolean): number {
  return latePayer ? Math.round(Math.max(12, rng.normal(32, 12))) : Math.round(Math.max(-5, Math.min(9, rng.normal(1, 3))));
}

export function addCustomers(ctx: DemoContext): void {
  const nCustomers = Math.max(20, Math.round(320 * ctx.scale));
  const usedNames = new Set<string>();
  for (let ci = 0; ci < nCustomers; ci++) {
    if (ci % 20 === 0) ctx.progress('customers', ci, nCustomers);
    const c = drawCustomer(ctx, ci, usedNames);
    const days = orderDays(ctx, c);
    const truth: CustomerTruth = {
      contactId: c.contact.ContactID,
      cadenceDays: c.cad.period,
      acquired: c.acquired,
      leaves: Number.isFinite(c.churned) ? c.churned : null,
      oneOffOrders: c.cad.period ? 0 : days.length,
      orderSize: c.orderSize,
      rate: c.rate,
      foreign: c.foreign,
      terms: c.terms,
      latePayer: c.latePayer,
      orderDays: [],
      invoices: [],
    };
    ctx.customers.push(truth);
    for (const day of days) {
      if (day > ctx.asOf) continue;
      const skipped = c.cad.period !== 0 && ctx.rng.chance(SKIPPED);
      truth.orderDays.push({ day, skipped });
      if (!skipped) addOrder(ctx, c, day, truth);
    }
  }
  ctx.progress('customers', nCustomers, nCustomers);
  addUsdCreditNote(ctx);
}

function customerName(ctx: DemoContext, usedNames: Set<string>): string {
  const { rng } = ctx;
  for (;;) {
    const n = `${rng.pick(FIRST_WORDS)} ${rng.pick(SECOND_WORDS)}`;
    const name = usedNames.has(n) ? `${n} ${rng.int(2, 99)}` : n;
    if (!usedNames.has(name)) {
      usedNames.add(name);
      return name;
    }
  }
}

function drawCustomer(ctx: DemoContext, ci: number, usedNames: Set<string>): Customer {
  const { rng, start, asOf } = ctx;
  let r = rng.next();
  // Every demo, however small, has a few habitual late payers who order monthly: overdue receivables to chase.
  const chronicLate = ci % 9 === 4;
  const cad = chronicLate ? CADENCES.find((c) => c.label === 'MONTHLY')! : (CADENCES.find((c) => (r -= c.share) < 0) ?? CADENCES[CADENCES.length - 1]!);
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
  const contact = addContact(ctx, customerName(ctx, usedNames), { customer: true }, acquired, foreign ? { DefaultCurrency: 'USD' } : {});
  return { contact, cad, acquired, churned, foreign, currency, rate, terms, latePayer, orderSize };
}

/** The days a customer orders on: a few one-off orders, or a cadence with some jitter until it leaves. */
function orderDays(ctx: DemoContext, c: Customer): number[] {
  const { rng } = ctx;
  const days: number[] = [];
  if (c.cad.period === 0) {
    const n = rng.chance(0.6) ? 1 : rng.int(2, 3);
    for (let i = 0; i < n; i++) days.push(i === 0 ? c.acquired : c.acquired + rng.int(20, 400));
  } else {
    for (let d = c.acquired; d <= ctx.asOf && d < c.churned; ) {
      days.push(d);
      d += cadenceGap(rng, c.cad.period);
    }
  }
  return days;
}

function addOrder(ctx: DemoContext, c: Customer, day: number, truth: CustomerTruth): void {
  const sale = addSalesInvoice(ctx, c, day);
  if (!sale) return;
  // A credit note now and then (mostly allocated to the invoice).
  const credited = ctx.rng.chance(CREDITED) ? addCreditNote(ctx, c, sale) : 0;
  const paid = settle(ctx, c, sale, sale.total - credited);
  truth.invoices.push({ day, due: sale.due, owed: toBase(c, sale.total - credited), paid });
}

/** An invoice's lines for about `target` cents: one to four products, now and then a discount; GST unless exported. */
export function invoiceLines(rng: Rng, target: number, foreign: boolean) {
  const lines: Record<string, unknown>[] = [];
  const nLines = rng.int(1, 4);
  let sub = 0;
  let tax = 0;
  for (let i = 0; i < nLines; i++) {
    const p = rng.pick(PRODUCTS);
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
}

/** The invoice of an order, posted when authorised; undefined when it is not (draft, submitted, voided). */
function addSalesInvoice(ctx: DemoContext, c: Customer, day: number): Sale | undefined {
  const { rng, asOf, start } = ctx;
  const target = orderTarget(rng, c.orderSize, day, start);
  const { lines, sub, tax } = invoiceLines(rng, target, c.foreign);
  const total = sub + tax;
  const due = day + c.terms;
  ctx.seq.invoice++;
  const id = rng.guid();
  const recent = asOf - day <= 10;
  let status = 'AUTHORISED';
  if (recent && rng.chance(0.1)) status = rng.chance(0.6) ? 'DRAFT' : 'SUBMITTED';
  else if (rng.chance(VOIDED)) status = 'VOIDED';
  const inv: XeroRecord = {
    Type: 'ACCREC',
    InvoiceID: id,
    InvoiceNumber: `INV-${String(ctx.seq.invoice).padStart(5, '0')}`,
    Reference: rng.chance(0.5) ? `PO ${rng.int(1000, 9999)}` : '',
    Contact: { ContactID: c.contact.ContactID, Name: c.contact.Name },
    Date: msDate(day),
    DueDate: msDate(due),
    Status: status,
    LineAmountTypes: 'Exclusive',
    LineItems: lines,
    SubTotal: amt(sub),
    TotalTax: amt(tax),
    Total: amt(total),
    CurrencyCode: c.currency,
    CurrencyRate: c.rate,
    UpdatedDateUTC: msStamp(day),
    AmountDue: amt(total),
    AmountPaid: 0,
    AmountCredited: 0,
  };
  ctx.invoices.push(inv);
  if (status !== 'AUTHORISED') return undefined;
  const base = (cents: number) => toBase(c, cents);
  ctx.salesByMonth.set(monthKey(day), (ctx.salesByMonth.get(monthKey(day)) ?? 0) + base(sub));
  ctx.journals.push({ day, sourceId: id, sourceType: 'ACCREC', lines: [{ code: '610', net: base(total) }, { code: '200', net: -base(sub) }, ...(tax ? [{ code: '820', net: -base(tax) }] : [])].map(fixRounding(base(total))) });
  return { inv, id, day, due, sub, total };
}

/** A credit note for part of a sale; returns the amount allocated to the invoice (0 when left as a credit). */
function addCreditNote(ctx: DemoContext, c: Customer, sale: Sale): number {
  const { rng } = ctx;
  const { inv, id } = sale;
  const cnSub = Math.round(sale.sub * rng.pick(CREDIT_SHARES));
  const cnTax = c.foreign ? 0 : Math.round(cnSub / 10);
  const cnTotal = cnSub + cnTax;
  const allocate = rng.chance(CREDIT_ALLOCATED);
  const cnDay = Math.min(ctx.asOf, sale.day + rng.int(1, 6));
  ctx.seq.creditNote++;
  const cnId = rng.guid();
  const cnNumber = `CN-${String(ctx.seq.creditNote).padStart(4, '0')}`;
  ctx.creditNotes.push({
    Type: 'ACCRECCREDIT',
    CreditNoteID: cnId,
    CreditNoteNumber: cnNumber,
    Reference: `Credit for ${inv.InvoiceNumber as string}`,
    Contact: { ContactID: c.contact.ContactID, Name: c.contact.Name },
    Date: msDate(cnDay),
    DueDate: msDate(cnDay),
    Status: allocate ? 'PAID' : 'AUTHORISED',
    LineAmountTypes: 'Exclusive',
    LineItems: [{ Description: 'Damaged goods credit', Quantity: 1, UnitAmount: amt(cnSub), LineAmount: amt(cnSub), TaxAmount: amt(cnTax), AccountCode: '200', TaxType: c.foreign ? 'EXEMPTEXPORT' : 'OUTPUT' }],
    SubTotal: amt(cnSub),
    TotalTax: amt(cnTax),
    Total: amt(cnTotal),
    RemainingCredit: allocate ? 0 : amt(cnTotal),
    CurrencyCode: c.currency,
    CurrencyRate: c.rate,
    UpdatedDateUTC: msStamp(cnDay),
    Allocations: allocate ? [{ Amount: amt(cnTotal), Date: msDate(cnDay), Invoice: { InvoiceID: id, InvoiceNumber: inv.InvoiceNumber } }] : [],
  });
  const base = (cents: number) => toBase(c, cents);
  ctx.journals.push({ day: cnDay, sourceId: cnId, sourceType: 'ACCRECCREDIT', lines: [{ code: '200', net: base(cnSub) }, ...(cnTax ? [{ code: '820', net: base(cnTax) }] : []), { code: '610', net: -base(cnTotal) }].map(fixRounding(-base(cnTotal))) });
  if (!allocate) return 0;
  inv.AmountCredited = amt(cnTotal);
  inv.AmountDue = amt(sale.total - cnTotal);
  inv.CreditNotes = [{ CreditNoteID: cnId, CreditNoteNumber: cnNumber, Total: amt(cnTotal), AppliedAmount: amt(cnTotal), Date: msDate(cnDay) }];
  return cnTotal;
}

/** Payment behaviour (paymentDelay), and some pay in part; returns the day it is paid in full (null: not by the day generated to). */
function settle(ctx: DemoContext, c: Customer, sale: Sale, owed: number): number | null {
  const { rng, asOf } = ctx;
  const { inv } = sale;
  const paidDay = sale.due + paymentDelay(rng, c.latePayer);
  if (paidDay <= asOf) {
    addReceipt(ctx, c, sale, paidDay, owed);
    inv.Status = 'PAID';
    inv.FullyPaidOnDate = msDate(paidDay);
    inv.AmountPaid = amt(owed);
    inv.AmountDue = 0;
    inv.UpdatedDateUTC = msStamp(paidDay, 11);
    return paidDay;
  }
  if (asOf - sale.day > 20 && rng.chance(0.08)) {
    const part = Math.round(owed * rng.pick([0.3, 0.5, 0.6]));
    const partDay = Math.min(asOf - 1, sale.day + rng.int(5, 20));
    addReceipt(ctx, c, sale, partDay, part);
    inv.AmountPaid = amt(part);
    inv.AmountDue = amt(owed - part);
    inv.UpdatedDateUTC = msStamp(partDay, 11);
  }
  return null;
}

/** A customer's payment into the cheque account. */
function addReceipt(ctx: DemoContext, c: Customer, sale: Sale, payDay: number, cents: number): void {
  const { cheque } = ctx;
  const { inv, id } = sale;
  const pid = ctx.rng.guid();
  ctx.payments.push({
    PaymentID: pid,
    Date: msDate(payDay),
    Amount: amt(cents),
    CurrencyRate: c.rate,
    PaymentType: 'ACCRECPAYMENT',
    Status: 'AUTHORISED',
    IsReconciled: reconciledBy(ctx, payDay),
    Reference: inv.InvoiceNumber,
    Account: { AccountID: cheque.AccountID, Code: cheque.Code },
    Invoice: { InvoiceID: id, InvoiceNumber: inv.InvoiceNumber },
    UpdatedDateUTC: msStamp(payDay, 11),
  });
  ctx.journals.push({ day: payDay, sourceId: pid, sourceType: 'ACCRECPAYMENT', lines: [{ code: '090', net: toBase(c, cents) }, { code: '610', net: -toBase(c, cents) }] });
  moveBank(ctx, cheque, payDay, toBase(c, cents));
}

/** An unallocated USD credit note. */
function addUsdCreditNote(ctx: DemoContext): void {
  const usdCustomer = ctx.contacts.find((c) => c.DefaultCurrency === 'USD');
  if (!usdCustomer) return;
  const { asOf } = ctx;
  ctx.seq.creditNote++;
  const usdCnId = ctx.rng.guid();
  ctx.creditNotes.push({
    Type: 'ACCRECCREDIT',
    CreditNoteID: usdCnId,
    CreditNoteNumber: `CN-${String(ctx.seq.creditNote).padStart(4, '0')}`,
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
  ctx.journals.push({ day: asOf - 12, sourceId: usdCnId, sourceType: 'ACCRECCREDIT', lines: [{ code: '200', net: inBase }, { code: '610', net: -inBase }] });
}

/** Puts any rounding difference of a converted journal onto its first line so it sums to zero. */
function fixRounding(_first: number) {
  return (line: JournalLine, index: number, all: JournalLine[]): JournalLine => {
    if (index !== 0) return line;
    const rest = all.slice(1).reduce((a, l) => a + l.net, 0);
    return { ...line, net: -rest };
  };
}
