/**
 * The demo generator (issue 2, "Demo data"): deterministic, three years of a
 * realistic small business, shaped like Xero's own bodies (validated against
 * the schemas of Xero's OpenAPI description), internally consistent.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { Ajv } from 'ajv';
import { generateDemo } from '../src/demo/generate.js';

const SHARED = resolve(import.meta.dirname, '..', '..', 'shared');
const asOf = new Date('2026-11-23T00:00:00Z');
const demo = generateDemo({ asOf });
const files = demo.files as Record<string, any>;
const all = (name: string, key: string): any[] => {
  const body = files[name];
  return (Array.isArray(body) ? body : [body]).flatMap((p) => p[key]);
};
const ms = (d: string) => Number(/\/Date\((-?\d+)/.exec(d)![1]);
const cents = (n: number) => Math.round(n * 100);
const invoices = all('Invoices.json', 'Invoices');
const payments = all('Payments.json', 'Payments');

describe('demo generator', () => {
  it('is deterministic: the same seed and date give byte-identical files; another seed differs', () => {
    expect(JSON.stringify(generateDemo({ asOf }).files)).toBe(JSON.stringify(demo.files));
    expect(JSON.stringify(generateDemo({ asOf, seed: 7 }).files)).not.toBe(JSON.stringify(demo.files));
  });

  it('spans three years with hundreds of customers and suppliers', () => {
    const days = invoices.map((i) => ms(i.Date));
    expect((Math.max(...days) - Math.min(...days)) / 86_400_000).toBeGreaterThan(3 * 365 - 40);
    const contacts = all('Contacts.json', 'Contacts');
    expect(contacts.filter((c) => c.IsCustomer).length).toBeGreaterThanOrEqual(300);
    expect(contacts.filter((c) => c.IsSupplier).length).toBeGreaterThanOrEqual(60);
  });

  it('invoice and bill totals equal their lines plus tax, exactly', () => {
    for (const inv of invoices) {
      const sub = inv.LineItems.reduce((a: number, l: any) => a + cents(l.LineAmount), 0);
      const tax = inv.LineItems.reduce((a: number, l: any) => a + cents(l.TaxAmount), 0);
      expect(sub, inv.InvoiceNumber).toBe(cents(inv.SubTotal));
      expect(tax, inv.InvoiceNumber).toBe(cents(inv.TotalTax));
      expect(sub + tax, inv.InvoiceNumber).toBe(cents(inv.Total));
    }
  });

  it('PAID invoices are paid in full by their payments (less allocated credit)', () => {
    const paid = new Map<string, number>();
    for (const p of payments) paid.set(p.Invoice.InvoiceID, (paid.get(p.Invoice.InvoiceID) ?? 0) + cents(p.Amount));
    for (const inv of invoices.filter((i) => i.Status === 'PAID')) {
      expect(paid.get(inv.InvoiceID), inv.InvoiceNumber).toBe(cents(inv.Total) - cents(inv.AmountCredited));
    }
  });

  it("its truth (bench/oracle.ts's ground truth) is its books: each customer's authorised invoices, what they owe, when they were paid in full", () => {
    const DAY = 86_400_000;
    const byContact = new Map(demo.truth.customers.map((c) => [c.contactId, c]));
    const authorised = invoices.filter((i) => i.Type === 'ACCREC' && (i.Status === 'AUTHORISED' || i.Status === 'PAID'));
    expect(demo.truth.customers.reduce((n, c) => n + c.invoices.length, 0)).toBe(authorised.length);
    for (const inv of authorised) {
      const c = byContact.get(inv.Contact.ContactID)!;
      const day = ms(inv.Date) / DAY;
      const t = c.invoices.find((x) => x.day === day && x.due === ms(inv.DueDate) / DAY)!;
      expect(t.owed).toBe(Math.round((cents(inv.Total) - cents(inv.AmountCredited ?? 0)) / (inv.CurrencyRate ?? 1)));
      expect(t.paid).toBe(inv.Status === 'PAID' ? ms(inv.FullyPaidOnDate) / DAY : null);
      expect(c.orderDays.some((o) => o.day === day && !o.skipped)).toBe(true);
    }
    // Habits as drawn: a cadence's orders stop when the customer leaves; one-off customers order a few times.
    for (const c of demo.truth.customers) {
      if (c.leaves !== null) expect(c.orderDays.every((o) => o.day < c.leaves!)).toBe(true);
      if (c.cadenceDays === 0) expect(c.oneOffOrders).toBeGreaterThanOrEqual(c.orderDays.length);
    }
  });

  it('every journal balances to zero', () => {
    for (const j of all('Journals.json', 'Journals')) {
      expect(j.JournalLines.reduce((a: number, l: any) => a + cents(l.NetAmount), 0), String(j.JournalNumber)).toBe(0);
    }
  });

  it('BankSummary closing balances equal the reconciled movements through each account', () => {
    const rows = files['BankSummary.json'].Reports[0].Rows[1].Rows;
    const journals = all('Journals.json', 'Journals');
    for (const row of rows) {
      const [, opening, received, spent, closing] = row.Cells.map((c: any) => cents(Number(c.Value)));
      expect(opening + received - spent).toBe(closing);
    }
    // The savings account has no unreconciled movements older than 3 days, so its closing equals its journal total.
    const savings = rows.find((r: any) => r.Cells[0].Value === 'Business Savings Account');
    const id = savings.Cells[0].Attributes[0].Value;
    const fromJournals = journals
      .filter((j: any) => ms(j.JournalDate) <= asOf.getTime() - 3 * 86_400_000)
      .flatMap((j: any) => j.JournalLines)
      .filter((l: any) => l.AccountID === id)
      .reduce((a: number, l: any) => a + cents(l.NetAmount), 0);
    expect(cents(Number(savings.Cells[4].Value))).toBe(fromJournals);
  });

  it('has what the forecast and the analytics need: overdue receivables, late payers, pipeline, credit notes, POs, USD', () => {
    const open = invoices.filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED');
    expect(open.filter((i) => ms(i.DueDate) < asOf.getTime()).length).toBeGreaterThan(5);
    const late = invoices.filter(
      (i) => i.Type === 'ACCREC' && i.Status === 'PAID' && ms(i.FullyPaidOnDate) - ms(i.DueDate) > 15 * 86_400_000,
    );
    expect(new Set(late.map((i) => i.Contact.ContactID)).size).toBeGreaterThan(10);
    expect(invoices.some((i) => i.Status === 'DRAFT' || i.Status === 'SUBMITTED')).toBe(true);
    const cns = all('CreditNotes.json', 'CreditNotes');
    expect(cns.filter((c) => c.Type === 'ACCRECCREDIT').every((c) => /^CN-\d{4}$/.test(c.CreditNoteNumber))).toBe(true);
    expect(cns.some((c) => c.Allocations.length > 0) && cns.some((c) => c.RemainingCredit > 0)).toBe(true);
    const pos = all('PurchaseOrders.json', 'PurchaseOrders');
    expect(new Set(pos.map((p) => p.Status))).toEqual(new Set(['BILLED', 'AUTHORISED', 'DRAFT', 'SUBMITTED', 'DELETED']));
    expect(invoices.some((i) => i.CurrencyCode === 'USD')).toBe(true);
    expect(all('Accounts.json', 'Accounts').filter((a) => a.Type === 'BANK')).toHaveLength(3);
  });

  it('names the sensitive material: payroll employees, the director, wages and the director loan accounts', () => {
    const contacts = all('Contacts.json', 'Contacts');
    const names = demo.sensitive.contactIds.map((id) => contacts.find((c) => c.ContactID === id)!.Name);
    expect(names).toContain('Jane Hart (Director)');
    expect(names).toHaveLength(7);
    expect(demo.sensitive.accountCodes).toEqual(['477', '880']);
  });

  it("validates against the schemas of Xero's published OpenAPI description", () => {
    const yaml = parseYaml(readFileSync(join(SHARED, 'xero', 'xero_accounting.yaml'), 'utf8'));
    const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
    ajv.addSchema({ $id: 'xero', components: yaml.components }, 'xero');
    const check = (schema: string, record: unknown) => {
      const validate = ajv.getSchema(`xero#/components/schemas/${schema}`)!;
      const ok = validate(record);
      expect(ok, `${schema}: ${JSON.stringify(validate.errors?.slice(0, 2))}`).toBe(true);
    };
    // The validator is not vacuous: a record Xero would not produce fails.
    expect(ajv.getSchema('xero#/components/schemas/Invoice')!({ ...invoices[0], Type: 'NOT-A-TYPE' })).toBe(false);
    expect(ajv.getSchema('xero#/components/schemas/Payment')!({ ...payments[0], Amount: 'ten' })).toBe(false);
    for (const inv of invoices.slice(0, 300)) check('Invoice', inv);
    for (const c of all('Contacts.json', 'Contacts').slice(0, 100)) check('Contact', c);
    for (const a of all('Accounts.json', 'Accounts')) check('Account', a);
    for (const p of payments.slice(0, 200)) check('Payment', p);
    for (const b of all('BankTransactions.json', 'BankTransactions').slice(0, 100)) check('BankTransaction', b);
    for (const po of all('PurchaseOrders.json', 'PurchaseOrders').slice(0, 100)) check('PurchaseOrder', po);
    for (const cn of all('CreditNotes.json', 'CreditNotes')) check('CreditNote', cn);
    const credits = [...all('Overpayments.json', 'Overpayments'), ...all('Prepayments.json', 'Prepayments')];
    const schedules = all('RepeatingInvoices.json', 'RepeatingInvoices');
    expect(credits.length).toBeGreaterThanOrEqual(2);
    expect(schedules.length).toBeGreaterThanOrEqual(1);
    for (const o of all('Overpayments.json', 'Overpayments')) check('Overpayment', o);
    for (const p of all('Prepayments.json', 'Prepayments')) check('Prepayment', p);
    for (const r of schedules) check('RepeatingInvoice', r);
    // The bank side of each credit is a bank transaction of Xero's matching type.
    const types = new Set(all('BankTransactions.json', 'BankTransactions').map((b: { Type: string }) => b.Type));
    expect(types.has('RECEIVE-OVERPAYMENT') && types.has('RECEIVE-PREPAYMENT')).toBe(true);
    for (const j of all('Journals.json', 'Journals').slice(0, 100)) check('Journal', j);
    check('Organisation', files['Organisation.json'].Organisations[0]);
    check('ReportWithRows', files['BankSummary.json']);
  });
});
