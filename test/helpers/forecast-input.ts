/** Engine inputs for the pure forecast tests: an organisation with one bank account, documents and paid histories. */
import fc from 'fast-check';
import { addDays } from '../../src/domain/calendar.js';
import { D } from '../../src/domain/money.js';
import type { ForecastInput, LedgerItem } from '../../src/domain/forecast/types.js';

export const AS_OF = '2026-11-25'; // a Wednesday: week 1 is 23-29 November

export function input(over: Partial<ForecastInput> = {}): ForecastInput {
  return {
    orgId: 'o1',
    asOf: AS_OF,
    currency: 'AUD',
    bankAccounts: [{ id: 'bank-1', name: 'Cheque', currency: 'AUD', reconciledBalance: '10000', statementBalance: null, unreconciledNet: '0' }],
    override: null,
    items: [],
    bankTxns: [],
    purchaseOrders: [],
    manualItems: [],
    accounts: { 'acc-sales': { name: 'Sales', code: '200' }, 'acc-rent': { name: 'Rent', code: '469' } },
    ...over,
  };
}

let seq = 0;
export function doc(p: Partial<LedgerItem> & { issueDate: string }): LedgerItem {
  const total = p.total ?? '100';
  return {
    id: `d${++seq}`,
    kind: 'AR',
    contactId: 'c1',
    status: 'AUTHORISED',
    dueDate: addDays(p.issueDate, 14),
    paidDate: null,
    total,
    amountDue: p.status === 'PAID' ? '0' : total,
    number: null,
    reference: null,
    accountId: null,
    ...p,
  };
}

/** `n` paid invoices of a customer, one a month back from `before`, each paid `delay` days after its due date. */
export function paidHistory(contactId: string, n: number, delay: number, before = AS_OF, terms = 14): LedgerItem[] {
  return Array.from({ length: n }, (_, i) => {
    const issue = addDays(before, -30 * (i + 1) - terms - Math.max(0, delay));
    const due = addDays(issue, terms);
    return doc({ contactId, issueDate: issue, dueDate: due, status: 'PAID', paidDate: addDays(due, delay), total: '500' });
  });
}

/** Any amount from 0 to 10^16 with up to 6 decimals. */
const anyAmount = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 16n }), fc.integer({ min: 0, max: 6 }))
  .map(([n, scale]) => new D(n.toString()).div(new D(10).pow(scale)).toFixed());

/**
 * Random books (property tests): up to 40 documents of 3 customers and no contact, of any status, terms and
 * payment delay, around the cut-off; manual lines, purchase orders, bank series (monthly, quarterly, yearly, uneven) of up to two years, and an
 * opening balance (reconciled, plus an unreconciled millionth).
 */
export function arbitraryBooks(): fc.Arbitrary<{ books: ForecastInput; opening: string }> {
  const day = fc.integer({ min: -200, max: 120 }).map((d) => addDays(AS_OF, d));
  const item = fc.record({
    kind: fc.constantFrom<'AR' | 'AP'>('AR', 'AP'),
    status: fc.constantFrom<LedgerItem['status']>('AUTHORISED', 'PAID', 'DRAFT', 'SUBMITTED', 'VOIDED'),
    contactId: fc.constantFrom('c1', 'c2', 'c3', null),
    issueDate: day,
    terms: fc.integer({ min: 0, max: 60 }),
    delay: fc.integer({ min: -5, max: 60 }),
    total: anyAmount,
    accountId: fc.constantFrom('acc-sales', 'acc-rent', null),
  });
  return fc
    .record({
      items: fc.array(item, { maxLength: 40 }),
      opening: anyAmount,
      manual: fc.array(fc.record({ date: day, amount: anyAmount, neg: fc.boolean(), accountId: fc.constantFrom('acc-rent', null) }), { maxLength: 3 }),
      orders: fc.array(fc.record({ issue: day, total: anyAmount, status: fc.constantFrom('AUTHORISED', 'DRAFT', 'BILLED'), contactId: fc.constantFrom('c1', 'c2', null) }), { maxLength: 4 }),
      series: fc.array(
        fc.record({
          k: fc.integer({ min: 1, max: 12 }),
          // Monthly, quarterly on uneven days (the yearly pattern, loose quarters), yearly, or irregular.
          every: fc.constantFrom(30, 30, 91, 365),
          jitter: fc.array(fc.integer({ min: -40, max: 40 }), { minLength: 12, maxLength: 12 }),
          amount: fc.integer({ min: 1, max: 10 ** 7 }),
          neg: fc.boolean(),
          contactId: fc.constantFrom('s1', 'c2', null),
          accountId: fc.constantFrom('acc-rent', 'acc-sales', null),
        }),
        { maxLength: 3 },
      ),
    })
    .map(({ items, opening, manual, orders, series }) => {
      const ledger = items.map((x, i) => {
        const due = addDays(x.issueDate, x.terms);
        const paid = addDays(due, x.delay);
        const isPaid = x.status === 'PAID' && paid < AS_OF;
        return doc({
          id: `p${i}`,
          kind: x.kind,
          status: x.status === 'PAID' && !isPaid ? 'AUTHORISED' : x.status,
          contactId: x.contactId,
          issueDate: x.issueDate,
          dueDate: due,
          paidDate: isPaid ? paid : null,
          total: x.total,
          amountDue: isPaid ? '0' : x.total,
          accountId: x.accountId,
        });
      });
      const books = input({
        items: ledger,
        bankAccounts: [{ id: 'b', name: 'B', currency: 'AUD', reconciledBalance: opening, statementBalance: null, unreconciledNet: '0.000001' }],
        manualItems: manual.map((m, i) => ({ id: `m${i}`, date: m.date, amount: m.neg ? `-${m.amount}` : m.amount, accountId: m.accountId })),
        purchaseOrders: orders.map((o, i) => ({ id: `po${i}`, number: `PO-${i}`, reference: '', contactId: o.contactId, status: o.status, issueDate: o.issue, deliveryDate: null, expectedArrivalDate: null, total: o.total })),
        // A bank series of each generated amount going back up to two years (rent, subscriptions, taxes, an insurance...),
        // every 30, 91 or 365 days, or on uneven days (the jitter, for every second series).
        bankTxns: series.flatMap((x, j) =>
          Array.from({ length: x.k }, (_, m) => ({
            id: `t${j}-${m}`,
            date: addDays(AS_OF, Math.max(-729, -x.every * (m + 1) + (j % 2 ? x.jitter[m]! : 0))),
            amount: `${x.neg ? '-' : ''}${x.amount / 100}`,
            contactId: x.contactId,
            accountId: x.accountId,
            reference: null,
          })),
        ),
      });
      return { books, opening };
    });
}
