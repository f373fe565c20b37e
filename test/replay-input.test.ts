/**
 * The books as they stood on the morning of a past cut-off (src/backtest/replay.ts
 * `inputAt`, docs/forecast.md#backtest), pure: an invoice is open for what its
 * payments and credit allocations dated before the cut-off leave due, paid on
 * the day of the one that settled it, and a document settled without any
 * record on file is open until its paid date.
 */
import { describe, expect, it } from 'vitest';
import { indexLedger, inputAt } from '../src/backtest/replay.js';
import type { LedgerItem } from '../src/domain/forecast/types.js';
import type { RawLedger } from '../src/store/queries/raw-ledger.js';

const item = (id: string, over: Partial<LedgerItem>): LedgerItem => ({
  id,
  kind: 'AR',
  contactId: 'acme',
  status: 'PAID',
  issueDate: '2026-01-05',
  dueDate: '2026-02-04',
  paidDate: '2026-03-10',
  total: '1000.00',
  amountDue: '0.00',
  number: id,
  reference: null,
  accountId: null,
  ...over,
});

/** Given: an invoice paid in three parts (300 by bank, 200 by a credit note, the last 500 by bank); one written off without a record; one still open; a draft. */
const raw: RawLedger = {
  orgId: 'org',
  currency: 'AUD',
  timezone: 'Australia/Sydney',
  items: [
    item('parts', {}),
    item('written-off', { total: '250.00', paidDate: '2026-02-20' }),
    item('open', { status: 'AUTHORISED', paidDate: null, total: '400.00', amountDue: '150.00' }),
    item('draft', { status: 'DRAFT', paidDate: null, issueDate: '2026-02-01', total: '90.00', amountDue: '90.00' }),
    item('later', { issueDate: '2026-04-01', dueDate: '2026-05-01', paidDate: '2026-05-02' }),
  ],
  payments: [
    { itemId: 'parts', date: '2026-02-10', amount: '300.00', bankAccountId: 'bank' },
    { itemId: 'parts', date: '2026-03-10', amount: '500.00', bankAccountId: 'bank' },
    { itemId: 'open', date: '2026-02-15', amount: '250.00', bankAccountId: 'bank' },
    { itemId: 'later', date: '2026-05-02', amount: '1000.00', bankAccountId: 'bank' },
  ],
  allocations: [{ invoiceId: 'parts', date: '2026-02-25', amount: '200.00' }],
  bankTxns: [],
  purchaseOrders: [],
  bankAccounts: [{ id: 'bank', name: 'Operating', currency: 'AUD', book: '10000.00' }],
  accounts: {},
  liabilityLines: [
    { accountId: 'gst', date: '2026-02-09', amount: '10' },
    { accountId: 'gst', date: '2026-02-10', amount: '20' },
  ],
};
const ix = indexLedger(raw);
/** When: the books are read as of a cut-off; then: each document's status, paid date and amount due then. */
const at = (cutoff: string) => Object.fromEntries(inputAt(ix, cutoff).items.map((i) => [i.id, { status: i.status, paidDate: i.paidDate, amountDue: i.amountDue }]));

describe('the books on the morning of a past cut-off', () => {
  it('before any record, an invoice is open for its total; a document issued on or after the cut-off is not there yet', () => {
    expect(at('2026-02-01')).toEqual({
      parts: { status: 'AUTHORISED', paidDate: null, amountDue: '1000' },
      'written-off': { status: 'AUTHORISED', paidDate: null, amountDue: '250.00' },
      open: { status: 'AUTHORISED', paidDate: null, amountDue: '400' },
    });
  });

  it('each payment and credit allocation dated before the cut-off takes its part off what is due; the one dated on the cut-off does not yet', () => {
    expect(at('2026-02-10').parts).toEqual({ status: 'AUTHORISED', paidDate: null, amountDue: '1000' });
    expect(at('2026-02-11').parts).toEqual({ status: 'AUTHORISED', paidDate: null, amountDue: '700' });
    expect(at('2026-02-26').parts).toEqual({ status: 'AUTHORISED', paidDate: null, amountDue: '500' });
    expect(at('2026-02-26').open).toEqual({ status: 'AUTHORISED', paidDate: null, amountDue: '150' });
  });

  it('settled by the record that brings what is due to nothing: paid on that record\'s day', () => {
    expect(at('2026-03-11').parts).toEqual({ status: 'PAID', paidDate: '2026-03-10', amountDue: '0' });
  });

  it('settled without any record on file (written off): open until its paid date, paid after it', () => {
    expect(at('2026-02-20')['written-off']).toEqual({ status: 'AUTHORISED', paidDate: null, amountDue: '250.00' });
    expect(at('2026-02-21')['written-off']).toEqual({ status: 'PAID', paidDate: '2026-02-20', amountDue: '0' });
  });

  it('a draft issued before the cut-off is there as it is', () => {
    expect(at('2026-02-02').draft).toEqual({ status: 'DRAFT', paidDate: null, amountDue: '90.00' });
    expect(at('2026-02-01').draft).toBeUndefined();
  });

  it('a liability account\'s journal lines dated before the cut-off are known; the one dated on it not yet', () => {
    expect(inputAt(ix, '2026-02-10').liabilityLines).toEqual([{ accountId: 'gst', date: '2026-02-09', amount: '10' }]);
    expect(inputAt(ix, '2026-02-11').liabilityLines).toHaveLength(2);
  });
});
