/**
 * A supplier that orders before its deliveries (session 21): its next
 * delivery not ordered yet comes at least a lead time after today, which the
 * renewal model of its bills is told (po-matching.ts orderLeadTimes,
 * renewal.ts renewalDensity's `first`, series.ts).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addDays } from '../src/domain/calendar.js';
import { prepareForecast } from '../src/domain/forecast/engine.js';
import { orderLeadTimes } from '../src/domain/forecast/po-matching.js';
import { gapModel, renewalDensity } from '../src/domain/forecast/renewal.js';
import { toDay } from '../src/domain/forecast/days.js';
import type { PurchaseOrder } from '../src/domain/forecast/types.js';
import { AS_OF, doc, input } from './helpers/forecast-input.js';

const order = (p: Partial<PurchaseOrder> & { issueDate: string; deliveryDate: string }): PurchaseOrder => ({
  id: `po-${p.issueDate}-${p.contactId ?? 'acme'}`,
  number: `PO-${p.issueDate}`,
  reference: '',
  contactId: 'acme',
  status: 'BILLED',
  expectedArrivalDate: null,
  total: '1000',
  ...p,
});

describe('which suppliers order before their deliveries, and how far ahead', () => {
  const asOf = toDay(AS_OF);
  const bills = (n: number) => new Map([['acme', { days: Array.from({ length: n }, (_, i) => asOf - 10 - 20 * i) }]]);
  const orders = (leads: number[]) => leads.map((lead, i) => order({ issueDate: addDays(AS_OF, -10 - 20 * i - lead), deliveryDate: addDays(AS_OF, -10 - 20 * i) }));

  it('Given an order billed before each of its last four bills, Then its lead times, sorted, and four deliveries in five ordered first (never quite all)', () => {
    expect(orderLeadTimes(orders([9, 5, 12, 7]), new Map(), [], bills(4), asOf).get('acme')).toEqual({ leads: [5, 7, 9, 12], ordered: 4 / 5 });
  });

  it('Given a supplier that bills when it is ordered from and delivers later, Then the lead runs to the bill naming the order: nothing to tell', () => {
    // Orders issued on the day of the bill that names them, delivery 14 days after.
    const billedAtOnce = [0, 1, 2, 3].map((i) => order({ issueDate: addDays(AS_OF, -10 - 20 * i), deliveryDate: addDays(AS_OF, 4 - 20 * i) }));
    const named = billedAtOnce.map((o) => doc({ kind: 'AP', contactId: 'acme', issueDate: o.issueDate!, status: 'PAID', paidDate: o.issueDate, reference: ` ${o.number.toLowerCase()} ` }));
    expect(orderLeadTimes(billedAtOnce, new Map(), named, bills(4), asOf).has('acme')).toBe(false);
    // Without the bills naming them: to the expected arrival, 14 days.
    expect(orderLeadTimes(billedAtOnce, new Map(), [], bills(4), asOf).get('acme')!.leads).toEqual([14, 14, 14, 14]);
  });

  it('Given a draft order younger than its longest lead, Then one may be on its way: nothing to tell; an old forgotten draft changes nothing', () => {
    const draft = (ago: number) => order({ id: `draft-${ago}`, status: 'DRAFT', issueDate: addDays(AS_OF, -ago), deliveryDate: addDays(AS_OF, 10 - ago) });
    expect(orderLeadTimes([...orders([9, 5, 12, 7]), draft(3)], new Map(), [], bills(4), asOf).has('acme')).toBe(false);
    expect(orderLeadTimes([...orders([9, 5, 12, 7]), draft(200)], new Map(), [], bills(4), asOf).get('acme')!.leads).toEqual([5, 7, 9, 12]);
  });

  it('Given an order before only half of its bills, or fewer than three orders, Then it is not a supplier that orders first', () => {
    expect(orderLeadTimes(orders([9, 5, 12, 7]), new Map(), [], bills(8), asOf).has('acme')).toBe(false);
    expect(orderLeadTimes(orders([9, 5]), new Map(), [], bills(2), asOf).has('acme')).toBe(false);
  });

  it('Given a replayed cut-off, Then an order still AUTHORISED that a bill matches counts as billed; one no bill matches does not', () => {
    const list = orders([9, 5, 12, 7]).map((o) => ({ ...o, status: 'AUTHORISED' }));
    const matched = new Map(list.map((o) => [o.id, 'REFERENCE' as const]));
    expect(orderLeadTimes(list, matched, [], bills(4), asOf).get('acme')!.leads).toEqual([5, 7, 9, 12]);
    expect(orderLeadTimes(list, new Map(), [], bills(4), asOf).has('acme')).toBe(false);
  });
});

describe("the renewal model told something of the next event (renewalDensity's first)", () => {
  const model = gapModel([12, 15, 14, 18, 13, 16, 14, 15])!;

  it('property: told nothing (first = 1), Then the same expectations', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.double({ min: 0, max: 0.5, noNaN: true }), (t0, churn) => {
        const plain = renewalDensity(model, t0, 91, churn);
        const told = renewalDensity(model, t0, 91, churn, () => 1);
        told.forEach((v, u) => expect(v).toBeCloseTo(plain[u]!, 12));
      }),
    );
  });

  it('Given the next event cannot come before day 15, Then none before it, and each later day as likely as before, over the chance it comes from day 15 on (Bayes)', () => {
    // Gaps of about 30 days: no second event within the first 19 days, so the first 19 days hold the first event alone.
    const monthly = gapModel([30, 30, 30, 30, 30, 30, 30, 30])!;
    const first = (u: number) => (u >= 15 ? 1 : 0);
    const told = renewalDensity(monthly, 0, 19, 0, first);
    const plain = renewalDensity(monthly, 0, 19, 0);
    expect(Array.from(told.slice(1, 15)).every((v) => v === 0)).toBe(true);
    expect(Array.from(plain.slice(10, 15)).some((v) => v > 0)).toBe(true);
    for (let u = 15; u <= 19; u++) expect(told[u]! / plain[u]!).toBeCloseTo(1 / monthly.surv[14]!, 6);
  });
});

describe('a supplier that orders before every delivery, in the forecast', () => {
  // A stock supplier delivering every 10-24 days (no calendar cadence) for a year, each delivery ordered 7-10 days before, billed on
  // delivery on 30 days' terms; its last delivery 3 days ago, and no order open: its next delivery is at least 7 days away.
  const gaps = [11, 22, 15, 19, 10, 24, 13, 17, 21, 12, 18, 14, 23, 16, 10, 20, 12, 22, 15, 19, 11, 17, 24, 13];
  const deliveries: string[] = [];
  let d = addDays(AS_OF, -3);
  for (const g of gaps) {
    deliveries.push(d);
    d = addDays(d, -g);
  }
  const bills = deliveries.map((day) => {
    const paid = addDays(day, 30) < AS_OF;
    return doc({ kind: 'AP', contactId: 'stock', issueDate: day, dueDate: addDays(day, 30), status: paid ? 'PAID' : 'AUTHORISED', paidDate: paid ? addDays(day, 30) : null, total: '2000', reference: `PO-${day}` });
  });
  const orders = deliveries.map((day, i) => order({ id: `po-${i}`, number: `PO-${day}`, contactId: 'stock', status: 'BILLED', issueDate: addDays(day, -(7 + (i % 4))), deliveryDate: day }));
  const renewal = (purchaseOrders: PurchaseOrder[]) => prepareForecast(input({ items: bills, purchaseOrders })).daily.find((p) => p.id === 'recurring:bill:stock')!;

  it('Given no order open, Then hardly a delivery is expected in the next 7 days (only as a delivery not ordered first); the renewal model alone expects them', () => {
    const told = renewal(orders);
    const alone = renewal([]);
    const firstWeek = (p: typeof told) => Array.from(p.values.slice(1, 7)).reduce((a, b) => a + b, 0);
    // All 24 deliveries ordered first: 24 in 25 (one bill more) are, so a twenty-fifth of the week remains, renormalised.
    expect(firstWeek(alone)).toBeGreaterThan(0);
    expect(firstWeek(told)).toBeLessThan(0.1 * firstWeek(alone));
    expect(told.why.reason).toContain('it orders 7-10 days before a delivery and has no order open for the next one');
    // Later on the two agree: a delivery every 14 days or so.
    const late = (p: typeof told) => Array.from(p.values.slice(40, 80)).reduce((a, b) => a + b, 0);
    expect(late(told) / late(alone)).toBeCloseTo(1, 1);
  });
});
