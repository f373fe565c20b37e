/** Engine inputs for the pure forecast tests: an organisation with one bank account, documents and paid histories. */
import { addDays } from '../../src/domain/calendar.js';
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
