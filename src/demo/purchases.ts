/**
 * Suppliers and what the business buys: recurring overheads (rent,
 * subscriptions, insurance, accounting, energy), stock against purchase
 * orders, small suppliers' services, and a supplier credit note.
 */
import type { Account } from './accounts.js';
import { addContact, moveBank, reconciledBy, type DemoContext, type Party, type XeroRecord } from './context.js';
import { amt, DAY_MS, isoDay, monthKey, msDate, msStamp } from './format.js';

export interface BillLine {
  desc: string;
  code: string;
  cents: number;
  taxFree?: boolean;
}

export interface BillOptions {
  reference?: string;
  /** Days after the due date it is paid; drawn (-2 to 1) when absent. */
  payDelay?: number;
  unpaid?: boolean;
}

/** A bill, posted, and paid from `payFrom` when it falls due by the day (unless `unpaid`). */
export function addBill(ctx: DemoContext, supplier: Party, day: number, dueDays: number, lines: BillLine[], payFrom: Account, opts: BillOptions = {}) {
  const id = ctx.rng.guid();
  ctx.seq.bill++;
  const { LineItems, sub, tax } = billLineItems(ctx, lines);
  const total = sub + tax;
  const due = day + dueDays;
  const b: XeroRecord = {
    Type: 'ACCPAY',
    InvoiceID: id,
    InvoiceNumber: `BILL-${String(ctx.seq.bill).padStart(5, '0')}`,
    Reference: opts.reference ?? '',
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
  ctx.invoices.push(b);
  ctx.journals.push({
    day,
    sourceId: id,
    sourceType: 'ACCPAY',
    lines: [...lines.map((l) => ({ code: l.code, net: l.cents })), ...(tax ? [{ code: '820', net: tax }] : []), { code: '800', net: -total }],
  });
  // The delay is drawn even for a bill left unpaid.
  const paidDay = due + (opts.payDelay ?? ctx.rng.int(-2, 1));
  if (!opts.unpaid && paidDay <= ctx.asOf) payBill(ctx, b, id, total, paidDay, payFrom);
  return { id, total, bill: b };
}

function billLineItems(ctx: DemoContext, lines: BillLine[]) {
  let sub = 0;
  let tax = 0;
  const LineItems = lines.map((l) => {
    const t = l.taxFree ? 0 : Math.round(l.cents / 10);
    sub += l.cents;
    tax += t;
    return {
      LineItemID: ctx.rng.guid(),
      Description: l.desc,
      Quantity: 1,
      UnitAmount: amt(l.cents),
      LineAmount: amt(l.cents),
      TaxAmount: amt(t),
      AccountCode: l.code,
      TaxType: l.taxFree ? 'BASEXCLUDED' : 'INPUT',
    };
  });
  return { LineItems, sub, tax };
}

function payBill(ctx: DemoContext, b: XeroRecord, id: string, total: number, paidDay: number, payFrom: Account): void {
  const pid = ctx.rng.guid();
  ctx.payments.push({
    PaymentID: pid,
    Date: msDate(paidDay),
    Amount: amt(total),
    CurrencyRate: 1,
    PaymentType: 'ACCPAYPAYMENT',
    Status: 'AUTHORISED',
    IsReconciled: reconciledBy(ctx, paidDay),
    Reference: b.InvoiceNumber,
    Account: { AccountID: payFrom.AccountID, Code: payFrom.Code },
    Invoice: { InvoiceID: id, InvoiceNumber: b.InvoiceNumber },
    UpdatedDateUTC: msStamp(paidDay, 12),
  });
  ctx.journals.push({ day: paidDay, sourceId: pid, sourceType: 'ACCPAYPAYMENT', lines: [{ code: '800', net: total }, { code: payFrom.Code, net: -total }] });
  moveBank(ctx, payFrom, paidDay, -total);
  b.Status = 'PAID';
  b.FullyPaidOnDate = msDate(paidDay);
  b.AmountPaid = amt(total);
  b.AmountDue = 0;
  b.UpdatedDateUTC = msStamp(paidDay, 12);
}

function purchaseOrder(ctx: DemoContext, number: string, s: Party, day: number, delivery: number, sub: number, tax: number, status: string, updated: string) {
  return {
    PurchaseOrderID: ctx.rng.guid(),
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

const nextPoNumber = (ctx: DemoContext) => `PO-${String(++ctx.seq.purchaseOrder).padStart(4, '0')}`;

interface Suppliers {
  landlord: Party;
  energy: Party;
  insurer: Party;
  accountant: Party;
  saas: { c: Party; cents: number }[];
  stockSuppliers: Party[];
  smallSuppliers: Party[];
}

const STOCK_REGIONS = ['Riverina', 'Barossa', 'Hunter', 'Yarra', 'Margaret River', 'Tamar', 'Adelaide Hills', 'Mudgee'];
const STOCK_KINDS = ['Produce Co', 'Wholesale', 'Growers', 'Foods', 'Trading'];

function addSuppliers(ctx: DemoContext): Suppliers {
  const { rng, start } = ctx;
  const supplier = (name: string, firstDay = start) => addContact(ctx, name, { supplier: true }, firstDay);
  const landlord = supplier('Harbourside Property Trust');
  const energy = supplier('Origin Energy');
  const insurer = supplier('QBE Insurance');
  const accountant = supplier('Smith & Co Chartered Accountants');
  const saas = [
    { c: supplier('Xero Australia'), cents: 7_000 },
    { c: supplier('CloudPOS Pty Ltd'), cents: 14_900 },
    { c: supplier('Google Workspace'), cents: 4_200 },
  ];
  const stockSuppliers = Array.from({ length: 8 }, (_, i) => supplier(`${STOCK_REGIONS[i]} ${STOCK_KINDS[i % 5]}`));
  const smallSuppliers = Array.from({ length: Math.max(10, Math.round(55 * ctx.scale)) }, (_, i) =>
    supplier(`${rng.pick(['Ace', 'Metro', 'City', 'Prime', 'Swift', 'Allied', 'Southern', 'Pacific'])} ${rng.pick(['Cleaning', 'Plumbing', 'Electrical', 'Couriers', 'Packaging', 'Signage', 'Printing', 'Repairs'])} ${i + 1}`, start + rng.int(0, 900)),
  );
  return { landlord, energy, insurer, accountant, saas, stockSuppliers, smallSuppliers };
}

/** Rent and subscriptions on the 1st (insurance quarterly, the accountant in August), energy on the 12th. */
function addRecurringBills(ctx: DemoContext, s: Suppliers): void {
  const { rng, asOf, cheque, card, sized } = ctx;
  for (let d = ctx.start; d <= asOf + 40; d++) {
    const date = new Date(d * DAY_MS);
    const dom = date.getUTCDate();
    const month = date.getUTCMonth();
    if (d > asOf) break;
    if (dom === 1) {
      addBill(ctx, s.landlord, d, 0, [{ desc: `Rent ${isoDay(d).slice(0, 7)}`, code: '469', cents: sized(420_000) }], cheque, { payDelay: 0 });
      for (const x of s.saas) addBill(ctx, x.c, d, 0, [{ desc: 'Monthly subscription', code: '485', cents: x.cents }], card, { payDelay: 0 });
      if (month % 3 === 0) addBill(ctx, s.insurer, d, 30, [{ desc: 'Business insurance, quarterly', code: '433', cents: sized(185_000) }], cheque);
      if (month === 7) addBill(ctx, s.accountant, d, 30, [{ desc: 'Annual accounts and tax return', code: '412', cents: 330_000 }], cheque);
    }
    if (dom === 12) {
      const winter = [5, 6, 7].includes(month) ? 1.5 : 1;
      addBill(ctx, s.energy, d, 14, [{ desc: 'Electricity', code: '445', cents: sized(Math.round(rng.int(38_000, 52_000) * winter)) }], cheque);
    }
  }
  ctx.progress('recurring bills', 1, 1);
}

// Stock purchases, each preceded by a purchase order it references: the profile's share of the sales of the
// month the stock is bought in (the previous month's while the current one is incomplete), over the suppliers.
function addStockPurchases(ctx: DemoContext, stockSuppliers: Party[]): void {
  const { rng, asOf } = ctx;
  const monthSales = (day: number) => {
    const k = monthKey(day);
    const v = k === monthKey(asOf) ? ctx.salesByMonth.get(monthKey(day - 30)) : ctx.salesByMonth.get(k);
    return v ?? 0;
  };
  for (const s of stockSuppliers) {
    for (let d = ctx.start + rng.int(0, 14), gap = rng.int(10, 24); d <= asOf; d += gap, gap = rng.int(10, 24)) {
      const share = (ctx.profile.cogsRatio * monthSales(d) * gap) / 30 / stockSuppliers.length;
      const cents = Math.max(20_000, Math.round(share * Math.exp(rng.normal(0, 0.15))));
      const poDay = d - rng.int(5, 12);
      const poNumber = nextPoNumber(ctx);
      const poTax = Math.round(cents / 10);
      const { bill: b } = addBill(ctx, s, d, 30, [{ desc: 'Stock', code: '310', cents }], ctx.cheque, { reference: poNumber });
      ctx.purchaseOrders.push(purchaseOrder(ctx, poNumber, s, poDay, d, cents, poTax, 'BILLED', b.UpdatedDateUTC as string));
    }
  }
  ctx.progress('stock purchases', 1, 1);
}

// Open purchase orders near today: matched by reference, by contact and amount, and unmatched.
function addOpenPurchaseOrders(ctx: DemoContext, stockSuppliers: Party[]): void {
  const { asOf, cheque } = ctx;
  const openPo = (s: Party, status: string, cents: number, delivery: number) => {
    const n = nextPoNumber(ctx);
    ctx.purchaseOrders.push(purchaseOrder(ctx, n, s, asOf - ctx.rng.int(2, 12), delivery, cents, Math.round(cents / 10), status, msStamp(asOf - 1)));
    return n;
  };
  for (let i = 0; i < 2; i++) {
    const s = stockSuppliers[i]!;
    const cents = 180_000 + i * 35_000;
    const n = openPo(s, 'AUTHORISED', cents, asOf + 7);
    addBill(ctx, s, asOf - 1, 30, [{ desc: 'Stock', code: '310', cents }], cheque, { reference: n, unpaid: true });
  }
  for (let i = 2; i < 4; i++) {
    const s = stockSuppliers[i]!;
    const cents = 150_000 + i * 21_000;
    openPo(s, 'AUTHORISED', cents, asOf + 10);
    addBill(ctx, s, asOf - 2, 30, [{ desc: 'Stock delivery', code: '310', cents }], cheque, { unpaid: true });
  }
  for (let i = 4; i < 7; i++) openPo(stockSuppliers[i]!, 'AUTHORISED', 200_000 + i * 13_000, asOf + 7 * (i - 2));
  openPo(stockSuppliers[7]!, 'DRAFT', 99_000, asOf + 30);
  openPo(stockSuppliers[0]!, 'SUBMITTED', 120_000, asOf + 21);
  openPo(stockSuppliers[1]!, 'DELETED', 75_000, asOf + 14);
}

// Occasional bills from small suppliers; a few overdue and unpaid.
function addSmallSupplierBills(ctx: DemoContext, smallSuppliers: Party[]): void {
  const { rng, start, asOf } = ctx;
  for (const s of smallSuppliers) {
    const n = rng.int(2, 14);
    for (let i = 0; i < n; i++) {
      const d = start + rng.int(0, asOf - start);
      addBill(ctx, s, d, rng.pick([7, 14, 30]), [{ desc: 'Services', code: '429', cents: rng.int(8_000, 160_000) }], ctx.cheque, {
        unpaid: asOf - d < 60 && rng.chance(0.1),
      });
    }
  }
}

// A supplier credit note, allocated.
function addSupplierCreditNote(ctx: DemoContext, s: Party): void {
  const { asOf } = ctx;
  const cnId = ctx.rng.guid();
  ctx.creditNotes.push({
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
  ctx.journals.push({ day: asOf - 40, sourceId: cnId, sourceType: 'ACCPAYCREDIT', lines: [{ code: '800', net: 27_500 }, { code: '310', net: -25_000 }, { code: '820', net: -2_500 }] });
}

/** The suppliers and all the bills and purchase orders; returns the landlord (its rent is also a repeating bill). */
export function addPurchases(ctx: DemoContext): { landlord: Party } {
  const suppliers = addSuppliers(ctx);
  addRecurringBills(ctx, suppliers);
  addStockPurchases(ctx, suppliers.stockSuppliers);
  addOpenPurchaseOrders(ctx, suppliers.stockSuppliers);
  addSmallSupplierBills(ctx, suppliers.smallSuppliers);
  addSupplierCreditNote(ctx, suppliers.stockSuppliers[0]!);
  ctx.progress('bills', 1, 1);
  return { landlord: suppliers.landlord };
}
