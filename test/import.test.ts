import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { parse as parseYaml } from 'yaml';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { LEDGER_TABLES } from './helpers/ledger.js';
import { type Db, rows } from '../src/store/db.js';
import { createOrg } from '../src/store/tenancy.js';
import { ImportError, importDirectory, type ImportProgress } from '../src/ledger/import.js';
import * as s from '../src/store/schema.js';
import { ops } from './helpers/ops.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = resolve(repoRoot, '..', 'shared');
const examplesDir = join(shared, 'xero', 'examples');
const NOW = new Date('2026-01-05T00:00:00Z');

type Body = Record<string, any>;
const example = (name: string): Body => JSON.parse(readFileSync(join(examplesDir, `GET_${name}.json`), 'utf8'));

// Xero's description carries example bodies for the two endpoints that have no GET_*.json file.
const yamlExamples = (() => {
  const doc = parseYaml(readFileSync(join(shared, 'xero', 'xero_accounting.yaml'), 'utf8'));
  const ex = (path: string): Body => doc.paths[path].get.responses['200'].content['application/json'].example;
  return { BankSummary: ex('/Reports/BankSummary'), Journals: ex('/Journals') };
})();

/** Every example body, named as `import` expects. */
function exampleFiles(): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  for (const name of ['Organisation', 'Contacts', 'Accounts', 'Invoices', 'CreditNotes', 'PurchaseOrders', 'Payments', 'BankTransactions']) {
    files[name] = example(name);
  }
  files.BankSummary = yamlExamples.BankSummary;
  files.Journals = yamlExamples.Journals;
  return files;
}

const tmpRoot = mkdtempSync(join(tmpdir(), 'cashline-import-'));
let dirCount = 0;
/** A folder holding the given bodies (objects are written as JSON; strings as they are). */
function folder(files: Record<string, unknown>): string {
  const dir = join(tmpRoot, `d${dirCount++}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, body] of Object.entries(files)) {
    writeFileSync(join(dir, `${name}.json`), typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  }
  return dir;
}

/** Everything stored for the organisation (and its import runs). */
async function snapshot(db: Db, orgId: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(LEDGER_TABLES)) {
    out[table] = await rows(db, sql`select * from ${sql.raw(table)} where org_id = ${orgId} order by ${sql.raw(order)}`);
  }
  out.organisations = await rows(db, sql`select * from organisations where id = ${orgId}`);
  out.import_runs = await rows(db, sql`select id, kind, outcome from import_runs where org_id = ${orgId} order by id`);
  return out;
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the import to fail');
}

afterAll(() => rmSync(tmpRoot, { recursive: true, force: true }));

describe.each(BACKENDS)('import on %s', (kind) => {
  let store: TestStore;
  let db: Db;
  let n = 0;
  // Xero's example bodies are an NZD ledger: the organisation is created in its currency (another one fails the import, see below).
  const newOrg = async (baseCurrency = 'NZD') => (await createOrg(db, { name: `Import ${kind} ${n++}`, now: NOW, baseCurrency })).orgId;

  beforeAll(async () => {
    store = await freshStore(kind);
    db = store.db;
  });
  afterAll(async () => {
    await store?.close();
  });

  it("imports Xero's example bodies", async () => {
    const orgId = await newOrg();
    const progress: ImportProgress[] = [];
    const summary = await importDirectory(db, orgId, folder(exampleFiles()), { now: NOW, onProgress: (e) => progress.push(e) });
    expect(summary.counts).toEqual({
      Organisation: 1,
      Contacts: 2,
      Accounts: 2,
      Invoices: 3,
      CreditNotes: 2,
      Overpayments: 0,
      Prepayments: 0,
      PurchaseOrders: 2,
      Payments: 2,
      BankTransactions: 3,
      BankSummary: 1,
      Journals: 4,
      RepeatingInvoices: 0,
      JournalLines: 9,
    });
    expect(summary.files).toHaveLength(10);
    expect(progress.some((p) => p.resource === 'CashItems' && p.done === 5 && p.total === 5)).toBe(true);

    const [org] = await rows<Record<string, unknown>>(db, sql`select * from organisations where id = ${orgId}`);
    expect(org).toMatchObject({
      ledger_tenant_id: 'b2c885a9-4bb9-4a00-9b6e-6c2bf60b1a2b',
      base_currency: 'NZD',
      fy_end_day: 31,
      fy_end_month: 3,
      timezone: 'Pacific/Auckland',
      name: `Import ${kind} 0`,
    });

    const items = await rows<Record<string, unknown>>(
      db,
      sql`select id, source, ledger_type, ledger_status, status, total, amount_due, remaining_credit, sort_date, paid_date from cash_items where org_id = ${orgId} order by sort_date, id`,
    );
    expect(items).toEqual([
      { id: '046d8a6d-1ae1-4b4d-9340-5601bdf41b87', source: 'LEDGER_INVOICE', ledger_type: 'ACCREC', ledger_status: 'PAID', status: 'ACTUAL', total: '46', amount_due: '0', remaining_credit: null, sort_date: '2018-10-20', paid_date: '2018-11-29' },
      { id: 'd4956132-ed94-4dd7-9eaa-aa22dfdf06f2', source: 'LEDGER_INVOICE', ledger_type: 'ACCREC', ledger_status: 'VOIDED', status: 'CANCELLED', total: '40', amount_due: '0', remaining_credit: null, sort_date: '2018-10-20', paid_date: null },
      { id: '7ef31b20-de17-4312-8382-412f869b1510', source: 'LEDGER_INVOICE', ledger_type: 'ACCREC', ledger_status: 'AUTHORISED', status: 'FORECAST', total: '115', amount_due: '115', remaining_credit: null, sort_date: '2018-11-02', paid_date: null },
      { id: 'f8021bd2-9a6a-4c19-8477-163da0b9290f', source: 'LEDGER_CREDIT_NOTE', ledger_type: 'ACCPAYCREDIT', ledger_status: 'DRAFT', status: 'FORECAST', total: '46', amount_due: '46', remaining_credit: '46', sort_date: '2019-01-05', paid_date: null },
      { id: '249f15fa-f2a7-4acc-8769-0984103f2225', source: 'LEDGER_CREDIT_NOTE', ledger_type: 'ACCRECCREDIT', ledger_status: 'AUTHORISED', status: 'FORECAST', total: '34.5', amount_due: '32.5', remaining_credit: '32.5', sort_date: '2019-03-05', paid_date: null },
    ]);

    // The payment embedded in INV-0002 has no account; Payments.json adds it.
    const payments = await rows<Record<string, unknown>>(
      db,
      sql`select id, item_id, bank_account_id, amount, status, is_reconciled, payment_type from payments where org_id = ${orgId} order by id`,
    );
    expect(payments).toEqual([
      { id: '6b037c9b-2e5d-4905-84d3-eabfb3438242', item_id: '249f15fa-f2a7-4acc-8769-0984103f2225', bank_account_id: '136ebd08-60ea-4592-8982-be92c153b53a', amount: '2', status: 'AUTHORISED', is_reconciled: false, payment_type: 'ARCREDITPAYMENT' },
      { id: '99ea7f6b-c513-4066-bc27-b7c65dcd76c2', item_id: '046d8a6d-1ae1-4b4d-9340-5601bdf41b87', bank_account_id: '5690f1e8-1d02-4893-90c2-ee1a69eff942', amount: '46', status: 'AUTHORISED', is_reconciled: false, payment_type: 'ACCRECPAYMENT' },
    ]);

    // Contacts from Contacts.json, plus the ones named only by invoices, notes, orders and transactions.
    const contacts = await rows<Record<string, unknown>>(db, sql`select id, name, is_customer, is_supplier from contacts where org_id = ${orgId} order by name`);
    expect(contacts).toEqual([
      { id: 'a3675fc4-f8dd-4f03-ba5b-f1870566bcd7', name: 'Barney Rubble-83203', is_customer: true, is_supplier: false },
      { id: '5cc8cf28-567e-4d43-b287-687cfcaec47c', name: 'Katherine Warren', is_customer: true, is_supplier: true },
      { id: '430fa14a-f945-44d3-9f97-5df5e28441b8', name: 'Liam Gallagher', is_customer: true, is_supplier: true },
      { id: '3ec601ad-eddc-4ccb-a8ac-736e88293b1b', name: 'Lisa Parker', is_customer: false, is_supplier: false },
      { id: '9c2c64de-12c9-4167-b503-e2c0e1aa1f49', name: 'sam', is_customer: true, is_supplier: true },
    ]);

    const banks = await rows<Record<string, unknown>>(db, sql`select id, name, type, currency from accounts where org_id = ${orgId} and type = 'BANK' order by name`);
    expect(banks).toEqual([
      { id: '03f9cf1e-2deb-4bf1-b0a8-b57f08672eb8', name: 'Big City Bank', type: 'BANK', currency: null },
      { id: '6f7594f2-f059-4d56-9e67-47ac9733bfe9', name: 'Business Wells Fargo', type: 'BANK', currency: 'USD' },
      { id: 'ebd06280-af70-4bed-97c6-7451a454ad85', name: 'Business Savings Account', type: 'BANK', currency: 'NZD' },
    ].sort((a, b) => a.name.localeCompare(b.name)));
    const balances = await rows(db, sql`select account_id, reconciled_balance, statement_balance from bank_balances where org_id = ${orgId}`);
    expect(balances).toEqual([{ account_id: '03f9cf1e-2deb-4bf1-b0a8-b57f08672eb8', reconciled_balance: '10', statement_balance: null }]);

    const journal = await rows(db, sql`select journal_number, journal_date, account_code, net_amount from journal_lines where org_id = ${orgId} and journal_id = '1b31feeb-aa23-404c-8c19-24c827c53661' order by account_code`);
    expect(journal).toEqual([
      { journal_number: 1, journal_date: '2018-10-20', account_code: '200', net_amount: '-40' },
      { journal_number: 1, journal_date: '2018-10-20', account_code: '610', net_amount: '40' },
    ]);
    const poLines = await rows(db, sql`select purchase_order_id, line_number, line_amount from purchase_order_lines where org_id = ${orgId} order by purchase_order_id`);
    expect(poLines).toHaveLength(2);

    const runs = await rows<Record<string, unknown>>(db, sql`select id, kind, outcome, counts from import_runs where org_id = ${orgId}`);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: summary.runId, kind: 'import', outcome: 'ok' });
  });

  it("imports Xero's overpayments, prepayments and repeating invoices: credits as cash items, schedules replaced as a whole", async () => {
    const orgId = await newOrg();
    const dir = folder({ Contacts: example('Contacts'), Overpayments: example('Overpayments'), Prepayments: example('Prepayments'), RepeatingInvoices: example('RepeatingInvoices') });
    const summary = await importDirectory(db, orgId, dir, { now: NOW });
    expect(summary.counts).toMatchObject({ Overpayments: 5, Prepayments: 1, RepeatingInvoices: 1 });
    expect(summary.skipped).toEqual([]);
    const credits = await rows<Record<string, unknown>>(
      db,
      sql`select source, ledger_type, count(*)::int as n, sum(amount_due)::text as due from cash_items where org_id = ${orgId} group by 1, 2 order by 1, 2`,
    );
    expect(credits).toEqual([
      { source: 'LEDGER_OVERPAYMENT', ledger_type: 'RECEIVE-OVERPAYMENT', n: 3, due: '60' },
      { source: 'LEDGER_OVERPAYMENT', ledger_type: 'SPEND-OVERPAYMENT', n: 2, due: '3500' },
      { source: 'LEDGER_PREPAYMENT', ledger_type: 'RECEIVE-PREPAYMENT', n: 1, due: '3450' },
    ]);
    const schedules = await rows<Record<string, unknown>>(db, sql`select id, ledger_type, status, unit, period, next_scheduled_date, total from repeating_invoices where org_id = ${orgId}`);
    expect(schedules).toEqual([{ id: '428c0d75-909f-4b04-8403-a48dc27283b0', ledger_type: 'ACCREC', status: 'AUTHORISED', unit: 'MONTHLY', period: 1, next_scheduled_date: '2019-04-15', total: '5750' }]);
    // None of them is an invoice, a bill or a credit note of the lists.
    const lists = await rows<{ n: number }>(db, sql`select count(*)::int as n from cash_items where org_id = ${orgId} and source in ('LEDGER_INVOICE', 'LEDGER_BILL', 'LEDGER_CREDIT_NOTE')`);
    expect(lists[0]!.n).toBe(0);
    // A folder without RepeatingInvoices.json keeps the stored schedules; a list without one deletes it.
    await importDirectory(db, orgId, folder({ Contacts: example('Contacts') }), { now: NOW });
    expect(await rows(db, sql`select id from repeating_invoices where org_id = ${orgId}`)).toHaveLength(1);
    const again = await importDirectory(db, orgId, folder({ RepeatingInvoices: { RepeatingInvoices: [] } }), { now: NOW });
    expect(again.written.repeatingInvoices).toBe(1);
    expect(await rows(db, sql`select id from repeating_invoices where org_id = ${orgId}`)).toHaveLength(0);
  });

  it('is idempotent: a second import changes nothing and duplicates nothing', async () => {
    const orgId = await newOrg();
    const dir = folder(exampleFiles());
    await importDirectory(db, orgId, dir, { now: NOW });
    const first = await snapshot(db, orgId);
    await importDirectory(db, orgId, dir, { now: NOW });
    const second = await snapshot(db, orgId);
    expect(second.import_runs).toHaveLength(2);
    expect({ ...second, import_runs: [] }).toEqual({ ...first, import_runs: [] });
    expect(first.cash_items).toHaveLength(5);
  });

  it('rejects a corrupt record naming file, record and field, and writes nothing of that run', async () => {
    const orgId = await newOrg();
    await importDirectory(db, orgId, folder(exampleFiles()), { now: NOW });
    const before = await snapshot(db, orgId);

    const invoices = example('Invoices');
    const withInvoice = (i: number, patch: Record<string, unknown>) => {
      const body = structuredClone(invoices);
      Object.assign(body.Invoices[i], patch);
      // A change elsewhere in the run that must not be written either.
      const contacts = structuredClone(example('Contacts'));
      contacts.Contacts[0].Name = 'Renamed';
      return folder({ ...exampleFiles(), Contacts: contacts, Invoices: body });
    };
    const cases: Array<[string, string, RegExp]> = [
      [
        'bad date',
        withInvoice(2, { DueDate: '/Date(nope)/' }),
        /^Invoices\.json: record 2 \(InvoiceID 7ef31b20-de17-4312-8382-412f869b1510\): DueDate: not a date: "\/Date\(nope\)\/"$/,
      ],
      ['missing id', withInvoice(1, { InvoiceID: undefined }), /^Invoices\.json: record 1: InvoiceID: required$/],
      [
        'string for a number',
        withInvoice(0, { Total: '40.00' }),
        /^Invoices\.json: record 0 \(InvoiceID d4956132-ed94-4dd7-9eaa-aa22dfdf06f2\): Total: expected a number, got string$/,
      ],
      [
        'nested field',
        withInvoice(0, { LineItems: [{ Description: 'x', Quantity: 1, UnitAmount: 'ten', LineAmount: 10 }] }),
        /^Invoices\.json: record 0 \(InvoiceID d4956132-ed94-4dd7-9eaa-aa22dfdf06f2\): LineItems\[0\]\.UnitAmount: expected a number, got string$/,
      ],
      ['not JSON', folder({ ...exampleFiles(), Payments: '{"Payments": [' }), /^Payments\.json: not valid JSON: /],
      ['no array', folder({ ...exampleFiles(), Journals: { Journal: [] } }), /^Journals\.json: Journals: required/],
    ];
    for (const [label, dir, message] of cases) {
      const err = await rejection(importDirectory(db, orgId, dir, { now: new Date('2026-02-01T00:00:00Z') }));
      expect(err, label).toBeInstanceOf(ImportError);
      expect(err.message, label).toMatch(message);
      expect(await snapshot(db, orgId), label).toEqual(before);
    }
  });

  it('keeps operator sensitive flags on re-import', async () => {
    const orgId = await newOrg();
    const dir = folder(exampleFiles());
    await importDirectory(db, orgId, dir, { now: NOW });
    await db.execute(sql`update contacts set is_sensitive = true where org_id = ${orgId} and id in ('5cc8cf28-567e-4d43-b287-687cfcaec47c', 'a3675fc4-f8dd-4f03-ba5b-f1870566bcd7')`);
    await db.execute(sql`update accounts set is_sensitive = true where org_id = ${orgId} and code in ('091', '088')`);
    await importDirectory(db, orgId, dir, { now: new Date('2026-01-06T00:00:00Z') });
    const contacts = await rows(db, sql`select id from contacts where org_id = ${orgId} and is_sensitive order by id`);
    expect(contacts).toEqual([{ id: '5cc8cf28-567e-4d43-b287-687cfcaec47c' }, { id: 'a3675fc4-f8dd-4f03-ba5b-f1870566bcd7' }]);
    const accounts = await rows(db, sql`select code from accounts where org_id = ${orgId} and is_sensitive order by code`);
    expect(accounts).toEqual([{ code: '088' }, { code: '091' }]);
  });

  it('reads a file holding an array of page bodies', async () => {
    const orgId = await newOrg();
    const all = example('Invoices').Invoices;
    const pages = [
      { Invoices: [all[0]], pagination: { page: 1, pageSize: 1 } },
      { Invoices: [all[1], all[2]], pagination: { page: 2, pageSize: 2 } },
      { Invoices: [] },
    ];
    const summary = await importDirectory(db, orgId, folder({ Invoices: pages }), { now: NOW });
    expect(summary.counts.Invoices).toBe(3);
    expect(await rows(db, sql`select count(*)::int as n from cash_items where org_id = ${orgId}`)).toEqual([{ n: 3 }]);

    const bad = structuredClone(pages);
    bad[1]!.Invoices[1].Status = 'LOST';
    const err = await rejection(importDirectory(db, orgId, folder({ Invoices: bad }), { now: NOW }));
    expect(err.message).toBe(
      'Invoices.json: page 1: record 1 (InvoiceID 7ef31b20-de17-4312-8382-412f869b1510): Status: "LOST" is not one of DRAFT, SUBMITTED, AUTHORISED, PAID, VOIDED, DELETED',
    );
  });

  it('treats absent files as no records, and a smaller re-import deletes nothing', async () => {
    const orgId = await newOrg();
    const summary = await importDirectory(db, orgId, folder({ Contacts: example('Contacts') }), { now: NOW });
    expect(summary.files).toEqual(['Contacts.json']);
    expect(summary.counts.Invoices).toBe(0);
    const [org] = await rows<Record<string, unknown>>(db, sql`select ledger_tenant_id, timezone from organisations where id = ${orgId}`);
    expect(org).toEqual({ ledger_tenant_id: null, timezone: 'Australia/Sydney' });

    await importDirectory(db, orgId, folder(exampleFiles()), { now: NOW });
    const full = await snapshot(db, orgId);
    const fewer = structuredClone(example('Invoices'));
    fewer.Invoices = [fewer.Invoices[2]];
    await importDirectory(db, orgId, folder({ Invoices: fewer }), { now: NOW });
    const after = await snapshot(db, orgId);
    expect({ ...after, import_runs: [] }).toEqual({ ...full, import_runs: [] });
    expect(await rejection(importDirectory(db, orgId, join(tmpRoot, 'missing'), { now: NOW }))).toBeInstanceOf(ImportError);
  });

  it('stores DiscountRate as a fraction and money exactly', async () => {
    const orgId = await newOrg();
    const inv = structuredClone(example('Invoices').Invoices[2]);
    inv.LineItems = [
      { LineItemID: 'l1', Description: 'Half off', Quantity: 2, UnitAmount: 10, DiscountRate: 50, LineAmount: 10, TaxAmount: 0 },
      { LineItemID: 'l2', Description: 'A', Quantity: 1, UnitAmount: 0.1, LineAmount: 0.1, TaxAmount: 0 },
      { LineItemID: 'l3', Description: 'B', Quantity: 1, UnitAmount: 0.2, LineAmount: 0.2, TaxAmount: 0 },
    ];
    const bill = structuredClone(example('Invoices').Invoices[0]);
    Object.assign(bill, { Type: 'ACCPAY', InvoiceID: 'big-bill', SubTotal: 0, TotalTax: 0, Total: 0, AmountDue: 0 });
    // A 20-digit amount (and a long fraction) must survive as written: JSON.parse alone would round them.
    const text = JSON.stringify({ Invoices: [inv, bill] })
      .replace('"Total":0,', '"Total":12345678901234567890.12,')
      .replace('"AmountDue":0,', '"AmountDue":0.12345678901234567891,');
    await importDirectory(db, orgId, folder({ Invoices: text }), { now: NOW });
    const lines = await rows(db, sql`select id, discount_rate, line_amount from cash_item_lines where org_id = ${orgId} order by line_number`);
    expect(lines).toEqual([
      { id: 'l1', discount_rate: '0.5', line_amount: '10' },
      { id: 'l2', discount_rate: null, line_amount: '0.1' },
      { id: 'l3', discount_rate: null, line_amount: '0.2' },
    ]);
    const [sum] = await rows(db, sql`select sum(line_amount)::text as s from cash_item_lines where org_id = ${orgId} and id in ('l2', 'l3')`);
    expect(sum).toEqual({ s: '0.3' });
    const [big] = await rows(db, sql`select total, amount_due from cash_items where org_id = ${orgId} and id = 'big-bill'`);
    expect(big).toEqual({ total: '12345678901234567890.12', amount_due: '0.12345678901234567891' });

    // Bank transaction lines are JSON with money as exact strings.
    const bt = structuredClone(example('BankTransactions'));
    bt.BankTransactions[0].LineItems = [{ Description: 'Deposit', Quantity: 1, UnitAmount: 0.1, LineAmount: 0.1, TaxAmount: 0, AccountCode: '200' }];
    await importDirectory(db, orgId, folder({ BankTransactions: bt }), { now: NOW });
    const [tx] = await rows(db, sql`select lines from bank_transactions where org_id = ${orgId} and id = 'db54aab0-ad40-4ced-bcff-0940ba20db2c'`);
    expect(tx).toEqual({ lines: [{ description: 'Deposit', quantity: '1', unitAmount: '0.1', lineAmount: '0.1', taxAmount: '0', accountCode: '200' }] });
    const [empty] = await rows(db, sql`select lines from bank_transactions where org_id = ${orgId} and id = '29a69c45-64ca-4805-a1cc-34990de837b3'`);
    expect(empty).toEqual({ lines: [] });
  });

  it("replaces an item's lines when it carries lines, keeps them when it does not", async () => {
    const orgId = await newOrg();
    const inv = structuredClone(example('Invoices').Invoices[2]);
    inv.LineItems = [
      { Description: 'one', Quantity: 1, UnitAmount: 50, LineAmount: 50 },
      { Description: 'two', Quantity: 1, UnitAmount: 50, LineAmount: 50 },
    ];
    await importDirectory(db, orgId, folder({ Invoices: { Invoices: [inv] } }), { now: NOW });
    inv.LineItems = [{ Description: 'only', Quantity: 2, UnitAmount: 50, LineAmount: 100 }];
    await importDirectory(db, orgId, folder({ Invoices: { Invoices: [inv] } }), { now: NOW });
    const linesOf = () => rows(db, sql`select line_number, description, line_amount from cash_item_lines where org_id = ${orgId} order by line_number`);
    expect(await linesOf()).toEqual([{ line_number: 1, description: 'only', line_amount: '100' }]);
    inv.LineItems = [];
    await importDirectory(db, orgId, folder({ Invoices: { Invoices: [inv] } }), { now: NOW });
    expect(await linesOf()).toEqual([{ line_number: 1, description: 'only', line_amount: '100' }]);
  });

  it('never lets an older record, or a partial one, overwrite what is known', async () => {
    const orgId = await newOrg();
    await importDirectory(db, orgId, folder({ Invoices: example('Invoices'), Payments: example('Payments') }), { now: NOW });
    // The invoices again alone: their embedded payment has no account, status or reconciliation.
    await db.execute(sql`update payments set is_reconciled = true where org_id = ${orgId}`);
    await importDirectory(db, orgId, folder({ Invoices: example('Invoices') }), { now: NOW });
    const [p] = await rows(db, sql`select bank_account_id, status, is_reconciled from payments where org_id = ${orgId} and id = '99ea7f6b-c513-4066-bc27-b7c65dcd76c2'`);
    expect(p).toEqual({ bank_account_id: '5690f1e8-1d02-4893-90c2-ee1a69eff942', status: 'AUTHORISED', is_reconciled: true });

    // An older version of an invoice (earlier UpdatedDateUTC) is not written.
    const older = structuredClone(example('Invoices'));
    Object.assign(older.Invoices[2], { Status: 'DRAFT', UpdatedDateUTC: '/Date(1500000000000+0000)/' });
    const summary = await importDirectory(db, orgId, folder({ Invoices: older }), { now: NOW });
    expect(summary.written.cashItems).toBe(2);
    const [inv] = await rows(db, sql`select ledger_status from cash_items where org_id = ${orgId} and id = '7ef31b20-de17-4312-8382-412f869b1510'`);
    expect(inv).toEqual({ ledger_status: 'AUTHORISED' });
  });

  it('keeps credit-note allocations single when both the note and the invoice carry them', async () => {
    const orgId = await newOrg();
    const invoices = structuredClone(example('Invoices'));
    invoices.Invoices[2].CreditNotes = [{ CreditNoteID: '249f15fa-f2a7-4acc-8769-0984103f2225', AppliedAmount: 20, Date: '/Date(1551744000000+0000)/' }];
    const notes = structuredClone(example('CreditNotes'));
    notes.CreditNotes[0].Allocations = [
      { Amount: 20, Date: '/Date(1551744000000+0000)/', Invoice: { InvoiceID: '7ef31b20-de17-4312-8382-412f869b1510', InvoiceNumber: 'INV-0003' } },
    ];
    const allocations = () => rows(db, sql`select credit_note_id, seq, invoice_id, amount, date from credit_note_allocations where org_id = ${orgId} order by seq`);
    const expected = [{ credit_note_id: '249f15fa-f2a7-4acc-8769-0984103f2225', seq: 0, invoice_id: '7ef31b20-de17-4312-8382-412f869b1510', amount: '20', date: '2019-03-05' }];
    // Invoice first (as in one import), then again in either order.
    await importDirectory(db, orgId, folder({ Invoices: invoices }), { now: NOW });
    expect(await allocations()).toEqual(expected);
    await importDirectory(db, orgId, folder({ Invoices: invoices, CreditNotes: notes }), { now: NOW });
    expect(await allocations()).toEqual(expected);
    await importDirectory(db, orgId, folder({ Invoices: invoices }), { now: NOW });
    expect(await allocations()).toEqual(expected);
  });

  it("refuses a ledger other than the organisation's own", async () => {
    const orgId = await newOrg();
    await importDirectory(db, orgId, folder({ Organisation: example('Organisation') }), { now: NOW });
    const other = structuredClone(example('Organisation'));
    other.Organisations[0].OrganisationID = 'another-tenant';
    const err = await rejection(importDirectory(db, orgId, folder({ Organisation: other }), { now: NOW }));
    expect(err).toBeInstanceOf(ImportError);
    expect(err.message).toMatch(/^Organisation\.json: OrganisationID another-tenant is not the ledger this organisation is linked to/);
    expect(await rejection(importDirectory(db, 'no-such-org', folder({}), { now: NOW }))).toBeInstanceOf(ImportError);
  });
});

/**
 * The size the importer is built for: ~25,000 invoices with ~500,000 lines,
 * on PGlite, well under a minute. Opt-in (it writes ~200 MB of JSON):
 * CASHLINE_IMPORT_PERF=1 npx vitest run test/import.test.ts -t volume
 */
describe.runIf(process.env.CASHLINE_IMPORT_PERF)('import volume on pglite', () => {
  it('imports 25,000 invoices with 500,000 lines in well under a minute', { timeout: 300_000 }, async () => {
    const store = await freshStore('pglite');
    try {
      const { orgId } = await createOrg(store.db, { name: 'Volume', now: NOW });
      const template = example('Invoices').Invoices[1];
      const invoices = Array.from({ length: 25_000 }, (_, i) => ({
        ...template,
        InvoiceID: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        InvoiceNumber: `INV-${i}`,
        Type: i % 3 ? 'ACCREC' : 'ACCPAY',
        Contact: { ContactID: `c-${i % 700}`, Name: `Customer ${i % 700}` },
        Payments: [{ PaymentID: `p-${i}`, Date: template.Date, Amount: 46, CurrencyRate: 1 }],
        LineItems: Array.from({ length: 20 }, (_, j) => ({
          LineItemID: `${i}-${j}`,
          Description: `Item ${j}`,
          Quantity: 2,
          UnitAmount: 1.15,
          DiscountRate: j % 4 ? undefined : 10,
          LineAmount: 2.3,
          TaxAmount: 0.35,
          TaxType: 'OUTPUT2',
          AccountCode: '200',
          ItemCode: `SKU-${j}`,
        })),
      }));
      const dir = folder({ Invoices: JSON.stringify({ Invoices: invoices }) });
      const started = Date.now();
      const summary = await importDirectory(store.db, orgId, dir, { now: NOW });
      const seconds = (Date.now() - started) / 1000;
      console.log(`imported 25,000 invoices / 500,000 lines in ${seconds.toFixed(1)} s`);
      expect(summary.written.lineItems).toBe(500_000);
      expect(seconds).toBeLessThan(45);
    } finally {
      await store.close();
    }
  });
});

describe('cashline-server import says what it did and did not do (PostgreSQL, the real command)', () => {
  let store: TestStore;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    store = await freshStore('postgres');
    env = { DATABASE_URL: store.url!, CASHLINE_NOW: NOW.toISOString() };
  });
  afterAll(async () => {
    await store?.close();
  });
  const org = async (currency: string) => (await ops(['org', 'create', '--name', `Imp ${currency} ${Math.random()}`, '--base-currency', currency], env)).json.orgId as string;

  it('reports the files read (with record counts) and every file skipped, with the reason, in its JSON and on stderr', async () => {
    const dir = folder({ ...exampleFiles(), RepeatingInvoices: { RepeatingInvoices: [] }, Notes: { x: 1 }, Quotes: { Quotes: [] } });
    writeFileSync(join(dir, 'readme.txt'), 'hello');
    writeFileSync(join(dir, 'Items.json'), '');
    writeFileSync(join(dir, 'Prepayments.json'), '   ');
    rmSync(join(dir, 'Payments.json'));
    writeFileSync(join(dir, 'Payments.json'), '');
    const orgId = await org('NZD');
    const r = await ops(['import', '--org', orgId, '--dir', dir], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.files).toContain('Invoices.json');
    expect(r.json.files).not.toContain('Payments.json');
    const skipped = Object.fromEntries((r.json.skipped as { file: string; reason: string }[]).map((f) => [f.file, f.reason]));
    expect(Object.keys(skipped).sort()).toEqual(['Items.json', 'Notes.json', 'Payments.json', 'Prepayments.json', 'Quotes.json', 'readme.txt']);
    // Repeating invoices are read (an empty list is a list); Quotes are named as not used.
    expect(r.json.files).toContain('RepeatingInvoices.json');
    expect(skipped['Quotes.json']).toBe('quotes are not used');
    expect(skipped['Payments.json']).toBe('empty file');
    expect(skipped['Notes.json']).toMatch(/^not a resource this import reads \(it reads Organisation\.json/);
    expect(skipped['readme.txt']).toBe('not a .json file');
    expect(r.stderr).toMatch(/^import: read Invoices\.json: 3 records$/m);
    expect(r.stderr).toMatch(/^import: skipped Payments\.json: empty file$/m);
    expect(r.stderr).toMatch(/^import: skipped readme\.txt: not a \.json file$/m);
  });

  it('a folder with no Xero file fails with exit code 1, naming what it looked for', async () => {
    const orgId = await org('AUD');
    const empty = folder({});
    const none = await ops(['import', '--org', orgId, '--dir', empty], env);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^error: .*no Xero file to import: looked for Organisation\.json, Contacts\.json, .*Journals\.json, RepeatingInvoices\.json; the folder is empty/m);
    const other = folder({ Stuff: { a: 1 } });
    const wrong = await ops(['import', '--org', orgId, '--dir', other], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/no Xero file to import: .*; found only Stuff\.json/);
  });

  it("never changes the base currency silently: a mismatch fails naming both; --accept-ledger-currency takes the ledger's", async () => {
    const orgId = await org('AUD');
    const dir = folder(exampleFiles());
    const refused = await ops(['import', '--org', orgId, '--dir', dir], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: Organisation\.json: the ledger's base currency is NZD, the organisation's is AUD; nothing was imported\. Pass --accept-ledger-currency/m);
    const [before] = await store.db.select().from(s.organisations).where(eq(s.organisations.id, orgId));
    expect(before!.baseCurrency).toBe('AUD');
    const [{ n }] = (await rows<{ n: number }>(store.db, sql`select count(*)::int as n from cash_items where org_id = ${orgId}`)) as [{ n: number }];
    expect(Number(n)).toBe(0);
    const accepted = await ops(['import', '--org', orgId, '--dir', dir, '--accept-ledger-currency'], env);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.json.baseCurrencyChanged).toEqual({ from: 'AUD', to: 'NZD' });
    expect(accepted.stderr).toMatch(/^import: base currency changed from AUD to NZD/m);
    const [after] = await store.db.select().from(s.organisations).where(eq(s.organisations.id, orgId));
    expect(after!.baseCurrency).toBe('NZD');
    // The same currency again: no change reported.
    const again = await ops(['import', '--org', orgId, '--dir', dir], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.baseCurrencyChanged).toBeUndefined();
  });
});
