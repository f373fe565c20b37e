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
 *
 * This file is the public API and runs the steps, in a fixed order (they draw
 * from one seeded stream): the chart of accounts (`accounts.ts`, opened with
 * the shared state in `context.ts`), customers and sales (`sales.ts`),
 * suppliers, bills and purchase orders (`purchases.ts`), payroll and the
 * other bank movements (`bank.ts`), credits and schedules (`credits.ts`), the
 * opening balances (`opening.ts`), and the journals, bank summary and
 * organisation (`bodies.ts`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addBankMovements } from './bank.js';
import { bankSummary, journalBodies, organisation } from './bodies.js';
import { createContext } from './context.js';
import { addCreditsAndSchedules } from './credits.js';
import { addOpeningBalances } from './opening.js';
import { addPurchases } from './purchases.js';
import { addCustomers } from './sales.js';

import type { DemoOptions, DemoOutput, DemoProfile, XeroFiles } from './types.js';

export type { XeroFiles } from './types.js';

export type { CustomerTruth, DemoOptions, DemoOutput, DemoProfile } from './types.js';

export const WHOLESALER: DemoProfile = { cogsRatio: 0.55, cashWeeks: 7 };
export const ROASTER: DemoProfile = {
  cogsRatio: 0.45,
  cashWeeks: 3.5,
  lumpyBill: { inDays: 54, weeks: 4, supplier: 'Santos Green Coffee Importers', desc: 'Green coffee, container from Brazil' },
};

export function generateDemo(opts: DemoOptions): DemoOutput {
  const ctx = createContext(opts, opts.profile ?? WHOLESALER);
  addCustomers(ctx);
  const { landlord } = addPurchases(ctx);
  const { employees, director } = addBankMovements(ctx);
  addCreditsAndSchedules(ctx, landlord);
  addOpeningBalances(ctx, director);

  // Built in this order (journal ids, then the organisation's, are the last drawn), written in Xero's order.
  const journals = journalBodies(ctx);
  const summary = bankSummary(ctx);
  const org = organisation(ctx);
  const files: XeroFiles = {
    'Organisation.json': org,
    'Accounts.json': { Accounts: ctx.accounts },
    'Contacts.json': pages('Contacts', ctx.contacts),
    'Invoices.json': pages('Invoices', ctx.invoices),
    'CreditNotes.json': { CreditNotes: ctx.creditNotes },
    'Overpayments.json': { Overpayments: ctx.overpayments },
    'Prepayments.json': { Prepayments: ctx.prepayments },
    'RepeatingInvoices.json': { RepeatingInvoices: ctx.repeatingInvoices },
    'PurchaseOrders.json': pages('PurchaseOrders', ctx.purchaseOrders),
    'Payments.json': pages('Payments', ctx.payments),
    'BankTransactions.json': pages('BankTransactions', ctx.bankTxns),
    'BankSummary.json': summary,
    'Journals.json': pages('Journals', journals),
  };
  ctx.progress('done', 1, 1);
  return {
    files,
    sensitive: { contactIds: [...employees, director].map((c) => c.ContactID), accountCodes: ['477', '880'] },
    truth: { start: ctx.start, asOf: ctx.asOf, customers: ctx.customers },
    counts: {
      contacts: ctx.contacts.length,
      invoices: ctx.invoices.filter((i) => i.Type === 'ACCREC').length,
      bills: ctx.invoices.filter((i) => i.Type === 'ACCPAY').length,
      creditNotes: ctx.creditNotes.length,
      overpayments: ctx.overpayments.length,
      prepayments: ctx.prepayments.length,
      repeatingInvoices: ctx.repeatingInvoices.length,
      purchaseOrders: ctx.purchaseOrders.length,
      payments: ctx.payments.length,
      bankTransactions: ctx.bankTxns.length,
      journals: journals.length,
    },
  };
}

/** Records as Xero pages them: page bodies of `size` records ({ [key]: [...] }), at least one. */
export function pages<T>(key: string, records: T[], size = 100): Record<string, T[]>[] {
  const out: Record<string, T[]>[] = [];
  for (let i = 0; i < records.length; i += size) out.push({ [key]: records.slice(i, i + size) });
  return out.length ? out : [{ [key]: [] }];
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
