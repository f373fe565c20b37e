import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mapBankSummary, mapBankTransaction } from '../src/ledger/map/bank.js';
import { mapCreditNote, mapPrepaidCredit } from '../src/ledger/map/credits.js';
import { mapInvoice } from '../src/ledger/map/invoices.js';
import { mapJournal } from '../src/ledger/map/journals.js';
import { mapAccount, mapContact, mapOrganisation } from '../src/ledger/map/organisation.js';
import { mapPage, XeroRecordError } from '../src/ledger/map/page.js';
import { mapPayment } from '../src/ledger/map/payments.js';
import { mapPurchaseOrder } from '../src/ledger/map/purchase-orders.js';
import { mapRepeatingInvoice } from '../src/ledger/map/repeating-invoices.js';
import { cashStatus, discountFraction } from '../src/ledger/map/shared.js';
import { XeroValidationError } from '../src/ledger/xero/errors.js';
import { decimalOf } from '../src/ledger/xero/fields.js';
import { markLongNumbers, parseXeroJson } from '../src/ledger/xero/json.js';
import { ianaFromXeroTimezone } from '../src/ledger/xero/timezones.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const examples = resolve(repoRoot, '..', 'shared', 'xero', 'examples');
const example = (name: string) => JSON.parse(readFileSync(resolve(examples, `GET_${name}.json`), 'utf8')) as Record<string, any>;

const ctx = { orgId: 'org-1', now: new Date('2026-01-05T00:00:00Z'), baseCurrency: 'NZD' };

function problem(fn: () => unknown): { field: string; problem: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof XeroValidationError) return { field: err.field, problem: err.problem };
    throw err;
  }
  throw new Error('expected a validation error');
}

const invoice = (over: Record<string, unknown> = {}) => ({
  ...example('Invoices').Invoices[2],
  ...over,
});

describe('JSON numbers', () => {
  it('keeps long literals exact and short ones as numbers', () => {
    const body = parseXeroJson('{"a": 12345678901234567890.12, "b": 0.1, "c": "12345678901234567890", "d": [-1e-7, 1E+2]}') as any;
    expect(decimalOf(body.a)).toBe('12345678901234567890.12');
    expect(body.b).toBe(0.1);
    expect(decimalOf(body.b)).toBe('0.1');
    expect(body.c).toBe('12345678901234567890');
    expect(decimalOf(body.d[0])).toBe('-0.0000001');
    expect(decimalOf(body.d[1])).toBe('100');
    expect(decimalOf(46.0)).toBe('46');
  });

  it('leaves text without long numbers untouched, whatever strings it holds', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        fc.pre(!/\d{16}|\d[\d.]{16}/.test(text) && !text.includes('\\u0000'));
        expect(markLongNumbers(text)).toBe(text);
        expect(parseXeroJson(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  it('reads every decimal literal exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 12 }), (n, scale) => {
        const digits = (n < 0n ? -n : n).toString().padStart(scale + 1, '0');
        const literal = `${n < 0n ? '-' : ''}${digits.slice(0, digits.length - scale)}${scale ? `.${digits.slice(-scale)}` : ''}`;
        const parsed = parseXeroJson(`{"Amount": ${literal}}`) as { Amount: number | string };
        const expected = literal.includes('.') ? literal.replace(/0+$/, '').replace(/\.$/, '') : literal;
        expect(decimalOf(parsed.Amount)).toBe(expected.replace(/^-0$/, '0').replace(/^-(0(\.0*)?)$/, '$1'));
      }),
    );
  });
});

describe('invoices and bills', () => {
  it("maps Xero's example invoices", () => {
    const [voided, paid, authorised] = example('Invoices').Invoices.map((r: unknown) => mapInvoice(r, ctx));
    expect(paid!.item).toMatchObject({
      orgId: 'org-1',
      id: '046d8a6d-1ae1-4b4d-9340-5601bdf41b87',
      source: 'LEDGER_INVOICE',
      ledgerType: 'ACCREC',
      number: 'INV-0002',
      reference: 'Red Fish, Blue Fish',
      contactId: 'a3675fc4-f8dd-4f03-ba5b-f1870566bcd7',
      ledgerStatus: 'PAID',
      status: 'ACTUAL',
      currency: 'NZD',
      currencyRate: '1',
      lineAmountTypes: 'Exclusive',
      issueDate: '2018-10-20',
      dueDate: '2018-12-30',
      paidDate: '2018-11-29',
      sortDate: '2018-10-20',
      subTotal: '40',
      totalTax: '6',
      total: '46',
      amountDue: '0',
      amountPaid: '46',
      amountCredited: '0',
      ledgerUpdatedAt: new Date(1541176592690),
      lastSyncedAt: ctx.now,
    });
    expect(voided!.item.status).toBe('CANCELLED');
    expect(authorised!.item.status).toBe('FORECAST');
    // "LineItems": [] carries no lines: stored lines are kept.
    expect(paid!.lines).toBeNull();
    expect(paid!.payments).toEqual([
      expect.objectContaining({
        id: '99ea7f6b-c513-4066-bc27-b7c65dcd76c2',
        itemId: paid!.item.id,
        bankAccountId: null,
        date: '2018-11-29',
        amount: '46',
        paymentType: 'ACCRECPAYMENT',
        status: undefined,
        isReconciled: undefined,
      }),
    ]);
    expect(paid!.contact).toMatchObject({ id: 'a3675fc4-f8dd-4f03-ba5b-f1870566bcd7', name: 'Barney Rubble-83203', isCustomer: true, isSupplier: false });
  });

  it('labels every ledger status', () => {
    expect(['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'].map(cashStatus)).toEqual([
      'FORECAST',
      'FORECAST',
      'FORECAST',
      'ACTUAL',
      'CANCELLED',
      'CANCELLED',
    ]);
  });

  it('maps bills, sorts by the due date when there is no issue date', () => {
    const m = mapInvoice(invoice({ Type: 'ACCPAY', Date: undefined, Status: 'DRAFT' }), ctx);
    expect(m.item).toMatchObject({ source: 'LEDGER_BILL', ledgerType: 'ACCPAY', issueDate: null, dueDate: '2018-11-07', sortDate: '2018-11-07', status: 'FORECAST' });
    expect(m.contact).toMatchObject({ isCustomer: false, isSupplier: true });
  });

  it('maps line items; DiscountRate is a percentage, stored as a fraction', () => {
    const m = mapInvoice(
      invoice({
        LineItems: [
          { LineItemID: 'li-1', Description: 'Half off', Quantity: 2, UnitAmount: 10, DiscountRate: 50, LineAmount: 10, TaxAmount: 1.5, TaxType: 'OUTPUT2', AccountCode: '200', ItemCode: 'W1', Tracking: [] },
          { Description: 'Flat discount', Quantity: 1, UnitAmount: 100, DiscountAmount: 12.5, LineAmount: 87.5, TaxAmount: 0, AccountCode: '200' },
          { Description: 'A note' },
          { Quantity: 3, UnitAmount: 0.1, LineAmount: 0.3, DiscountRate: 12.5 },
        ],
      }),
      ctx,
    );
    expect(m.lines).toEqual([
      { orgId: 'org-1', itemId: m.item.id, lineNumber: 1, id: 'li-1', description: 'Half off', quantity: '2', unitAmount: '10', lineAmount: '10', taxAmount: '1.5', taxType: 'OUTPUT2', accountCode: '200', itemCode: 'W1', discountRate: '0.5', discountAmount: null },
      { orgId: 'org-1', itemId: m.item.id, lineNumber: 2, id: `${m.item.id}:2`, description: 'Flat discount', quantity: '1', unitAmount: '100', lineAmount: '87.5', taxAmount: '0', taxType: null, accountCode: '200', itemCode: null, discountRate: null, discountAmount: '12.5' },
      { orgId: 'org-1', itemId: m.item.id, lineNumber: 3, id: `${m.item.id}:3`, description: 'A note', quantity: null, unitAmount: null, lineAmount: '0', taxAmount: '0', taxType: null, accountCode: null, itemCode: null, discountRate: null, discountAmount: null },
      { orgId: 'org-1', itemId: m.item.id, lineNumber: 4, id: `${m.item.id}:4`, description: null, quantity: '3', unitAmount: '0.1', lineAmount: '0.3', taxAmount: '0', taxType: null, accountCode: null, itemCode: null, discountRate: '0.125', discountAmount: null },
    ]);
    expect(discountFraction('100')).toBe('1');
    expect(discountFraction('0.01')).toBe('0.0001');
  });

  it('never puts discounts on bills', () => {
    const m = mapInvoice(invoice({ Type: 'ACCPAY', LineItems: [{ Quantity: 1, UnitAmount: 10, LineAmount: 5, DiscountRate: 50, DiscountAmount: 5 }] }), ctx);
    expect(m.lines![0]).toMatchObject({ discountRate: null, discountAmount: null });
  });

  it('maps credits applied to the invoice', () => {
    const m = mapInvoice(invoice({ CreditNotes: [{ CreditNoteID: 'cn-1', CreditNoteNumber: 'CN-1', AppliedAmount: 15, Date: '/Date(1541116800000+0000)/', Total: 34.5 }] }), ctx);
    expect(m.appliedCredits).toEqual([
      { orgId: 'org-1', creditNoteId: 'cn-1', invoiceId: m.item.id, invoiceNumber: 'INV-0003', amount: '15', date: '2018-11-02' },
    ]);
  });

  it('computes AmountDue when Xero leaves it out', () => {
    const m = mapInvoice(invoice({ AmountDue: undefined, AmountPaid: 15.1, AmountCredited: 0.2 }), ctx);
    expect(m.item.amountDue).toBe('99.7');
  });

  it('ignores unknown fields and reads nulls as absent', () => {
    const m = mapInvoice(invoice({ SomethingNew: { deep: [1, 2] }, Reference: null, FullyPaidOnDate: null }), ctx);
    expect(m.item.reference).toBeNull();
    expect(m.item.paidDate).toBeNull();
  });

  it('names the field at fault', () => {
    expect(problem(() => mapInvoice(invoice({ InvoiceID: undefined }), ctx))).toEqual({ field: 'InvoiceID', problem: 'required' });
    expect(problem(() => mapInvoice(invoice({ InvoiceID: '' }), ctx))).toEqual({ field: 'InvoiceID', problem: 'required' });
    expect(problem(() => mapInvoice(invoice({ DueDate: '2019-02-30' }), ctx))).toEqual({ field: 'DueDate', problem: 'not a date: "2019-02-30"' });
    expect(problem(() => mapInvoice(invoice({ Total: '115.00' }), ctx))).toEqual({ field: 'Total', problem: 'expected a number, got string' });
    expect(problem(() => mapInvoice(invoice({ Total: undefined }), ctx))).toEqual({ field: 'Total', problem: 'required' });
    expect(problem(() => mapInvoice(invoice({ InvoiceNumber: 17 }), ctx))).toEqual({ field: 'InvoiceNumber', problem: 'expected a string, got number' });
    expect(problem(() => mapInvoice(invoice({ Status: 'PENDING' }), ctx))).toEqual({
      field: 'Status',
      problem: '"PENDING" is not one of DRAFT, SUBMITTED, AUTHORISED, PAID, VOIDED, DELETED',
    });
    expect(problem(() => mapInvoice(invoice({ Type: 'ACCRECCREDIT' }), ctx)).field).toBe('Type');
    expect(problem(() => mapInvoice(invoice({ LineItems: [{ LineAmount: 1 }, { UnitAmount: '2' }] }), ctx))).toEqual({
      field: 'LineItems[1].UnitAmount',
      problem: 'expected a number, got string',
    });
    expect(problem(() => mapInvoice(invoice({ LineItems: [{ Quantity: 1, UnitAmount: 2 }] }), ctx))).toEqual({
      field: 'LineItems[0].LineAmount',
      problem: 'required',
    });
    expect(problem(() => mapInvoice(invoice({ LineItems: {} }), ctx))).toEqual({ field: 'LineItems', problem: 'expected an array, got object' });
    expect(problem(() => mapInvoice(invoice({ Contact: 'Bob' }), ctx))).toEqual({ field: 'Contact', problem: 'expected an object, got string' });
    expect(problem(() => mapInvoice(invoice({ Payments: [{ PaymentID: 'p', Amount: 1 }] }), ctx))).toEqual({ field: 'Payments[0].Date', problem: 'required' });
    expect(problem(() => mapInvoice(invoice({ Date: undefined, DueDate: undefined, UpdatedDateUTC: undefined }), ctx)).field).toBe('Date');
    expect(problem(() => mapInvoice('nope', ctx))).toEqual({ field: '', problem: 'expected an object, got string' });
  });

  it('refuses an amount beyond 10^1000 in a long literal, naming the field (it used to fail the page with a bare RangeError)', () => {
    const body = parseXeroJson(JSON.stringify(invoice()).replace(/"Total":\s*[0-9.]+/, '"Total": 1234567890123456e-1100'));
    expect(problem(() => mapInvoice(body, ctx))).toEqual({ field: 'Total', problem: 'not an amount: "1234567890123456e-1100" (beyond 10^1000)' });
  });

  it('refuses a long number where a string is required', () => {
    const body = parseXeroJson(JSON.stringify(invoice()).replace('"INV-0003"', '12345678901234567890'));
    expect(problem(() => mapInvoice(body, ctx))).toEqual({ field: 'InvoiceNumber', problem: 'expected a string, got number' });
  });
});

describe('credit notes', () => {
  it("maps Xero's example credit notes", () => {
    const [receivable, payable] = example('CreditNotes').CreditNotes.map((r: unknown) => mapCreditNote(r, ctx));
    expect(receivable!.item).toMatchObject({
      id: '249f15fa-f2a7-4acc-8769-0984103f2225',
      source: 'LEDGER_CREDIT_NOTE',
      ledgerType: 'ACCRECCREDIT',
      number: 'CN-0005',
      ledgerStatus: 'AUTHORISED',
      status: 'FORECAST',
      issueDate: '2019-03-05',
      total: '34.5',
      remainingCredit: '32.5',
      amountDue: '32.5',
      amountPaid: '2',
      amountCredited: '0',
    });
    expect(receivable!.allocations).toEqual([]);
    expect(receivable!.payments[0]).toMatchObject({ id: '6b037c9b-2e5d-4905-84d3-eabfb3438242', itemId: receivable!.item.id, amount: '2', paymentType: 'ARCREDITPAYMENT' });
    expect(payable!.item).toMatchObject({ ledgerType: 'ACCPAYCREDIT', number: null, status: 'FORECAST', remainingCredit: '46' });
    expect(payable!.contact).toMatchObject({ isSupplier: true });
  });

  it('maps allocations in order; absent allocations are not carried', () => {
    const raw = {
      ...example('CreditNotes').CreditNotes[0],
      RemainingCredit: 0,
      Status: 'PAID',
      FullyPaidOnDate: '/Date(1552521600000+0000)/',
      Allocations: [
        { Amount: 20, Date: '/Date(1551744000000+0000)/', Invoice: { InvoiceID: 'inv-1', InvoiceNumber: 'INV-1' } },
        { Amount: 12.5, Date: '2019-03-06T00:00:00', Invoice: { InvoiceID: 'inv-2' } },
      ],
    };
    const m = mapCreditNote(raw, ctx);
    expect(m.item).toMatchObject({ status: 'ACTUAL', paidDate: '2019-03-14', amountCredited: '32.5', amountPaid: '2', amountDue: '0' });
    expect(m.allocations).toEqual([
      { orgId: 'org-1', creditNoteId: m.item.id, seq: 0, invoiceId: 'inv-1', invoiceNumber: 'INV-1', amount: '20', date: '2019-03-05' },
      { orgId: 'org-1', creditNoteId: m.item.id, seq: 1, invoiceId: 'inv-2', invoiceNumber: null, amount: '12.5', date: '2019-03-06' },
    ]);
    expect(mapCreditNote({ ...raw, Allocations: undefined }, ctx).allocations).toBeNull();
    expect(problem(() => mapCreditNote({ ...raw, RemainingCredit: undefined }, ctx))).toEqual({ field: 'RemainingCredit', problem: 'required' });
  });
});

describe('other records', () => {
  it('maps the organisation', () => {
    const o = mapOrganisation(example('Organisation').Organisations[0], ctx);
    expect(o).toEqual({
      orgId: 'org-1',
      ledgerTenantId: 'b2c885a9-4bb9-4a00-9b6e-6c2bf60b1a2b',
      ledgerName: 'Dev Evangelist - Sid Test 3 (NZ-2016-02)',
      baseCurrency: 'NZD',
      fyEndDay: 31,
      fyEndMonth: 3,
      timezone: 'Pacific/Auckland',
    });
    const unknownZone = mapOrganisation({ OrganisationID: 'x', Timezone: 'MARSSTANDARDTIME' }, ctx);
    expect(unknownZone.timezone).toBeUndefined();
    expect(problem(() => mapOrganisation({ OrganisationID: 'x', FinancialYearEndDay: 31, FinancialYearEndMonth: 2 }, ctx)).field).toBe('FinancialYearEndDay');
    expect(problem(() => mapOrganisation({ OrganisationID: 'x', FinancialYearEndDay: 1.5, FinancialYearEndMonth: 2 }, ctx))).toEqual({
      field: 'FinancialYearEndDay',
      problem: 'expected an integer, got 1.5',
    });
  });

  it('maps Xero time zones to IANA', () => {
    expect(ianaFromXeroTimezone('AUSEASTERNSTANDARDTIME')).toBe('Australia/Sydney');
    expect(ianaFromXeroTimezone('NEWZEALANDSTANDARDTIME')).toBe('Pacific/Auckland');
    expect(ianaFromXeroTimezone('GMTSTANDARDTIME')).toBe('Europe/London');
    expect(ianaFromXeroTimezone('EASTERNSTANDARDTIME')).toBe('America/New_York');
    expect(ianaFromXeroTimezone('Eastern Standard Time')).toBe('America/New_York');
    expect(ianaFromXeroTimezone('NOWHERE')).toBeNull();
    expect(ianaFromXeroTimezone(undefined)).toBeNull();
  });

  it('maps contacts; flags Xero leaves out are not carried', () => {
    const [kat, lisa] = example('Contacts').Contacts.map((r: unknown) => mapContact(r, ctx));
    expect(kat).toMatchObject({ id: '5cc8cf28-567e-4d43-b287-687cfcaec47c', name: 'Katherine Warren', email: 'kat.warren@clampett.com', contactStatus: 'ACTIVE', isCustomer: true, isSupplier: true, ledgerUpdatedAt: new Date(1503348544227) });
    expect(lisa).toMatchObject({ isCustomer: false, isSupplier: false });
    expect(kat).not.toHaveProperty('isSensitive');
    const bare = mapContact({ ContactID: 'c', Name: 'Bare' }, ctx);
    expect(bare.isCustomer).toBeUndefined();
    expect(bare.contactStatus).toBeUndefined();
  });

  it('maps accounts', () => {
    const [bank, sales] = example('Accounts').Accounts.map((r: unknown) => mapAccount(r, ctx));
    expect(bank).toMatchObject({ id: 'ebd06280-af70-4bed-97c6-7451a454ad85', code: '091', name: 'Business Savings Account', type: 'BANK', currency: 'NZD', bankAccountType: 'BANK', class: null });
    expect(sales).toMatchObject({ code: '200', type: 'REVENUE', currency: null });
    expect(mapAccount({ AccountID: 'a', Name: 'Cash', Type: 'BANK', Class: 'ASSET', Status: 'ARCHIVED' }, ctx)).toMatchObject({ class: 'ASSET', status: 'ARCHIVED' });
  });

  it('maps payments to the invoice or credit note they pay', () => {
    const [toInvoice, toCredit] = example('Payments').Payments.map((r: unknown) => mapPayment(r, ctx));
    expect(toInvoice).toMatchObject({
      id: '99ea7f6b-c513-4066-bc27-b7c65dcd76c2',
      itemId: '046d8a6d-1ae1-4b4d-9340-5601bdf41b87',
      bankAccountId: '5690f1e8-1d02-4893-90c2-ee1a69eff942',
      date: '2018-11-29',
      amount: '46',
      paymentType: 'ACCRECPAYMENT',
      status: 'AUTHORISED',
      isReconciled: false,
    });
    expect(toCredit!.itemId).toBe('249f15fa-f2a7-4acc-8769-0984103f2225');
    expect(mapPayment({ PaymentID: 'p', Date: '2020-01-01', Amount: 1, Status: 'AUTHORISED', CreditNote: { CreditNoteID: 'cn' } }, ctx).itemId).toBe('cn');
  });

  it('maps purchase orders with their lines', () => {
    const [po] = example('PurchaseOrders').PurchaseOrders.map((r: unknown) => mapPurchaseOrder(r, ctx));
    expect(po!.order).toMatchObject({ id: 'f9627f0d-b715-4039-bb6a-96dc3eae5ec5', number: 'PO-0001', reference: '', status: 'DELETED', currency: 'NZD', issueDate: '2019-03-12', sortDate: '2019-03-12', total: '20' });
    expect(po!.lines).toEqual([
      { orgId: 'org-1', purchaseOrderId: po!.order.id, lineNumber: 1, description: 'Foobar', quantity: '1', unitAmount: '20', lineAmount: '20', taxAmount: '0', accountCode: null, itemCode: null },
    ]);
    expect(po!.contact).toMatchObject({ id: '430fa14a-f945-44d3-9f97-5df5e28441b8', isSupplier: true });
  });

  it('maps bank transactions, lines as JSON with money as strings', () => {
    const raw = { ...example('BankTransactions').BankTransactions[0], LineItems: [{ Description: 'Deposit', Quantity: 1, UnitAmount: 10, LineAmount: 10, AccountCode: '200', TaxAmount: 0 }] };
    const m = mapBankTransaction(raw, ctx);
    expect(m.transaction).toMatchObject({ id: 'db54aab0-ad40-4ced-bcff-0940ba20db2c', type: 'RECEIVE', bankAccountId: '6f7594f2-f059-4d56-9e67-47ac9733bfe9', date: '2016-10-13', status: 'AUTHORISED', isReconciled: false, currency: 'USD', total: '10' });
    expect(m.transaction.lines).toEqual([{ description: 'Deposit', quantity: '1', unitAmount: '10', lineAmount: '10', taxAmount: '0', accountCode: '200' }]);
    expect(m.account).toMatchObject({ id: '6f7594f2-f059-4d56-9e67-47ac9733bfe9', name: 'Business Wells Fargo', type: 'BANK', code: '088' });
    expect(mapBankTransaction(example('BankTransactions').BankTransactions[1], ctx).transaction.lines).toBeUndefined();
    expect(problem(() => mapBankTransaction({ ...raw, BankAccount: undefined }, ctx))).toEqual({ field: 'BankAccount', problem: 'required' });
  });

  it('maps journals to their lines', () => {
    const lines = mapJournal(
      {
        JournalID: 'j-1',
        JournalDate: '/Date(1539993600000+0000)/',
        JournalNumber: 1,
        SourceID: 'inv-1',
        SourceType: 'ACCREC',
        JournalLines: [
          { JournalLineID: 'l-1', AccountID: 'a-1', AccountCode: '610', NetAmount: 40.0, TaxAmount: 0.0 },
          { JournalLineID: 'l-2', AccountID: 'a-2', AccountCode: '200', NetAmount: -40.0 },
        ],
      },
      ctx,
    );
    expect(lines).toEqual([
      { orgId: 'org-1', journalId: 'j-1', id: 'l-1', journalNumber: 1, journalDate: '2018-10-20', accountId: 'a-1', accountCode: '610', netAmount: '40', taxAmount: '0', sourceType: 'ACCREC', sourceId: 'inv-1' },
      { orgId: 'org-1', journalId: 'j-1', id: 'l-2', journalNumber: 1, journalDate: '2018-10-20', accountId: 'a-2', accountCode: '200', netAmount: '-40', taxAmount: '0', sourceType: 'ACCREC', sourceId: 'inv-1' },
    ]);
  });
});

describe('the bank summary report', () => {
  const report = (rows: unknown[]) => ({
    Reports: [
      {
        ReportType: 'BankSummary',
        UpdatedDateUTC: '/Date(1556035526223)/',
        Rows: [
          { RowType: 'Header', Cells: [{ Value: 'Bank Accounts' }, { Value: 'Opening Balance' }, { Value: 'Cash Received' }, { Value: 'Cash Spent' }, { Value: 'Closing Balance' }] },
          { RowType: 'Section', Title: '', Rows: rows },
        ],
      },
    ],
  });
  const row = (id: string | null, name: string, closing: unknown) => ({
    RowType: 'Row',
    Cells: [
      { Value: name, ...(id ? { Attributes: [{ Value: id, Id: 'accountID' }] } : {}) },
      { Value: '0.00' },
      { Value: '110.00', ...(id ? { Attributes: [{ Value: id, Id: 'account' }] } : {}) },
      { Value: '100.00' },
      { Value: closing },
    ],
  });

  it('takes the closing balance of each account row as its reconciled balance', () => {
    const m = mapBankSummary(
      report([row('acc-1', 'Big City Bank', '10.00'), row('acc-2', 'Card', '-1,234.50'), { RowType: 'SummaryRow', Cells: [{ Value: 'Total' }, { Value: '0.00' }] }]),
      ctx,
    );
    expect(m.balances).toEqual([
      { orgId: 'org-1', accountId: 'acc-1', reconciledBalance: '10', statementBalance: null, balanceSyncedAt: new Date(1556035526223) },
      { orgId: 'org-1', accountId: 'acc-2', reconciledBalance: '-1234.5', statementBalance: null, balanceSyncedAt: new Date(1556035526223) },
    ]);
    expect(m.accounts.map((a) => [a.id, a.name, a.type])).toEqual([
      ['acc-1', 'Big City Bank', 'BANK'],
      ['acc-2', 'Card', 'BANK'],
    ]);
  });

  it('names the cell at fault', () => {
    expect(problem(() => mapBankSummary(report([row('acc-1', 'Bank', 'lots')]), ctx))).toEqual({
      field: 'Reports[0].Rows[1].Rows[0].Cells[4].Value',
      problem: 'not an amount: "lots"',
    });
    expect(problem(() => mapBankSummary(report([row(null, 'Bank', '1.00')]), ctx)).field).toBe('Reports[0].Rows[1].Rows[0].Cells');
    expect(problem(() => mapBankSummary({ Reports: [] }, ctx)).field).toBe('Reports');
  });
});

describe('pages', () => {
  it('maps a body and names the record at fault', () => {
    const body = example('Invoices');
    expect(mapPage('Invoices', body, ctx).cashItems).toHaveLength(3);
    const bad = { Invoices: [body.Invoices[0], { ...body.Invoices[1], DueDate: 'soon' }] };
    let err: unknown;
    try {
      mapPage('Invoices', bad, ctx);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(XeroRecordError);
    expect((err as Error).message).toBe('record 1 (InvoiceID 046d8a6d-1ae1-4b4d-9340-5601bdf41b87): DueDate: not a date: "soon"');
    expect(() => mapPage('Invoices', { Contacts: [] }, ctx)).toThrow('Invoices: required (the body holds no such array)');
    expect(() => mapPage('Invoices', [], ctx)).toThrow('expected a response body object with "Invoices", got array');
  });
});

describe('overpayments, prepayments and repeating invoices (Xero examples)', () => {
  it('maps an overpayment and a prepayment as credits: RemainingCredit is what is left to allocate (amountDue)', () => {
    const [spend, receive] = example('Overpayments').Overpayments;
    const op = mapPrepaidCredit('Overpayments', receive, ctx);
    expect(op.item).toMatchObject({
      id: '2a8bda49-8908-473b-8bcf-1f90990460eb',
      source: 'LEDGER_OVERPAYMENT',
      ledgerType: 'RECEIVE-OVERPAYMENT',
      ledgerStatus: 'AUTHORISED',
      status: 'FORECAST',
      currency: 'NZD',
      total: '20',
      amountDue: '20',
      remainingCredit: '20',
      amountCredited: '0',
      amountPaid: '0',
      issueDate: '2019-03-13',
      sortDate: '2019-03-13',
    });
    expect(op.allocations).toEqual([]);
    expect(op.contact).toMatchObject({ name: 'Liam Gallagher', isCustomer: true, isSupplier: false });
    expect(mapPrepaidCredit('Overpayments', spend, ctx).item).toMatchObject({ source: 'LEDGER_OVERPAYMENT', ledgerType: 'SPEND-OVERPAYMENT', amountDue: '500' });
    const pp = mapPrepaidCredit('Prepayments', example('Prepayments').Prepayments[0], ctx);
    expect(pp.item).toMatchObject({ source: 'LEDGER_PREPAYMENT', ledgerType: 'RECEIVE-PREPAYMENT', total: '3450', amountDue: '3450' });
  });

  it('an allocated overpayment keeps its allocations, and its remaining credit is the total less allocations and refunds', () => {
    const [, receive] = example('Overpayments').Overpayments;
    const m = mapPrepaidCredit(
      'Overpayments',
      {
        ...receive,
        Total: 100,
        RemainingCredit: undefined,
        Allocations: [{ Amount: 60, Date: '/Date(1552435200000+0000)/', Invoice: { InvoiceID: 'inv-1', InvoiceNumber: 'INV-1' } }],
        Payments: [{ PaymentID: 'refund-1', Date: '/Date(1552435200000+0000)/', Amount: 15 }],
      },
      ctx,
    );
    expect(m.item).toMatchObject({ amountDue: '25', amountCredited: '60', amountPaid: '15' });
    expect(m.allocations).toEqual([{ orgId: 'org-1', creditNoteId: receive.OverpaymentID, seq: 0, invoiceId: 'inv-1', invoiceNumber: 'INV-1', amount: '60', date: '2019-03-13' }]);
    expect(m.payments[0]).toMatchObject({ id: 'refund-1', itemId: receive.OverpaymentID, paymentType: 'AROVERPAYMENTPAYMENT' });
  });

  it('maps a repeating invoice as a schedule, with the account of its largest line', () => {
    const m = mapRepeatingInvoice(example('RepeatingInvoices').RepeatingInvoices[0], ctx);
    expect(m.row).toMatchObject({
      id: '428c0d75-909f-4b04-8403-a48dc27283b0',
      ledgerType: 'ACCREC',
      status: 'AUTHORISED',
      period: 1,
      unit: 'MONTHLY',
      dueDay: 10,
      dueDateType: 'OFFOLLOWINGMONTH',
      startDate: '2019-04-15',
      endDate: '2019-09-30',
      nextScheduledDate: '2019-04-15',
      currency: 'NZD',
      total: '5750',
      accountCode: '200',
    });
    expect(m.contact).toMatchObject({ name: 'Liam Gallagher', isCustomer: true });
  });

  it('rejects a schedule without a unit, or with a period below 1, naming the field', () => {
    const r = example('RepeatingInvoices').RepeatingInvoices[0];
    expect(problem(() => mapRepeatingInvoice({ ...r, Schedule: { ...r.Schedule, Unit: 'DAILY' } }, ctx)).field).toBe('Schedule.Unit');
    expect(problem(() => mapRepeatingInvoice({ ...r, Schedule: { ...r.Schedule, Period: 0 } }, ctx))).toEqual({ field: 'Schedule.Period', problem: 'must be 1 or more, got 0' });
  });

  it('mapPage reads the three bodies; a page of repeating invoices is the whole list', () => {
    const batch = mapPage('RepeatingInvoices', example('RepeatingInvoices'), ctx);
    expect(batch.repeatingInvoices).toHaveLength(1);
    expect(mapPage('Overpayments', example('Overpayments'), ctx).cashItems).toHaveLength(5);
    expect(mapPage('Prepayments', example('Prepayments'), ctx).cashItems).toHaveLength(1);
    expect(mapPage('Invoices', example('Invoices'), ctx).repeatingInvoices).toBeNull();
    expect(mapPage('RepeatingInvoices', { RepeatingInvoices: [] }, ctx).repeatingInvoices).toEqual([]);
  });
});
