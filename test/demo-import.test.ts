/**
 * The generated demo goes through the real importer (issue 2: "the importer
 * tested on Xero's own example bodies and on the generated demo"), on both
 * backends: every record lands, journals balance, re-importing changes nothing;
 * the same bodies held in memory (importFiles: the demo, the replays) land
 * the same rows as their folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { generateDemo, writeXeroFiles } from '../src/demo/generate.js';
import { importDirectory, importFiles } from '../src/ledger/import.js';
import { createOrg } from '../src/store/tenancy.js';
import { rows } from '../src/store/db.js';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { ledgerRows } from './helpers/ledger.js';

const now = new Date('2026-11-23T09:00:00Z');
const demo = generateDemo({ asOf: now, scale: 0.5 });

describe.each(BACKENDS)('demo imported on %s', (kind) => {
  let store: TestStore;
  let dir: string;
  let orgId: string;
  beforeAll(async () => {
    store = await freshStore(kind);
    dir = mkdtempSync(join(tmpdir(), 'cashline-demo-import-'));
    writeXeroFiles(dir, demo.files);
    orgId = (await createOrg(store.db, { name: 'Demo', now })).orgId;
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const snapshot = async () =>
    (
      await rows<{ t: string; n: number; total: string | null }>(
        store.db,
        sql`select 'cash_items' as t, count(*)::int8 as n, sum(total)::text as total from cash_items where org_id = ${orgId}
            union all select 'payments', count(*)::int8, sum(amount)::text from payments where org_id = ${orgId}
            union all select 'lines', count(*)::int8, sum(line_amount)::text from cash_item_lines where org_id = ${orgId}
            union all select 'journal_lines', count(*)::int8, sum(net_amount)::text from journal_lines where org_id = ${orgId}
            union all select 'contacts', count(*)::int8, null from contacts where org_id = ${orgId}
            union all select 'purchase_orders', count(*)::int8, sum(total)::text from purchase_orders where org_id = ${orgId}
            union all select 'bank_transactions', count(*)::int8, sum(total)::text from bank_transactions where org_id = ${orgId}
            union all select 'repeating_invoices', count(*)::int8, sum(total)::text from repeating_invoices where org_id = ${orgId}`,
      )
    ).map((r) => `${r.t}:${r.n}:${r.total}`);

  it('every generated record lands; journals net to zero; a second import changes nothing', async () => {
    await importDirectory(store.db, orgId, dir, { now });
    const first = await snapshot();
    const count = (t: string) => Number(first.find((x) => x.startsWith(`${t}:`))!.split(':')[1]);
    expect(count('cash_items')).toBe(demo.counts.invoices! + demo.counts.bills! + demo.counts.creditNotes! + demo.counts.overpayments! + demo.counts.prepayments!);
    expect(count('repeating_invoices')).toBe(demo.counts.repeatingInvoices);
    expect(count('payments')).toBe(demo.counts.payments);
    expect(count('contacts')).toBe(demo.counts.contacts);
    expect(count('purchase_orders')).toBe(demo.counts.purchaseOrders);
    expect(count('bank_transactions')).toBe(demo.counts.bankTransactions);
    expect(first.find((x) => x.startsWith('journal_lines:'))!.split(':')[2]).toMatch(/^0(\.0+)?$/);
    const [balances] = await rows<{ n: number }>(store.db, sql`select count(*)::int8 as n from bank_balances where org_id = ${orgId}`);
    expect(balances!.n).toBe(3);
    await importDirectory(store.db, orgId, dir, { now });
    expect(await snapshot()).toEqual(first);
  }, 120_000);

  it('the same bodies imported from memory (importFiles) land the same rows as their folder, and the run says where they came from', async () => {
    const small = generateDemo({ asOf: now, scale: 0.05, seed: 7 });
    const smallDir = join(dir, 'small');
    writeXeroFiles(smallDir, small.files);
    const fromFolder = (await createOrg(store.db, { name: 'Small demo from its folder', now })).orgId;
    const fromMemory = (await createOrg(store.db, { name: 'Small demo from memory', now })).orgId;
    await importDirectory(store.db, fromFolder, smallDir, { now });
    const summary = await importFiles(store.db, fromMemory, { ...small.files, 'notes.txt': 'not a ledger file' }, { now, where: '(the demo generator)' });
    expect(summary.skipped).toEqual([{ file: 'notes.txt', reason: 'not a .json file' }]);
    const rowsOf = await ledgerRows(store.db, fromMemory);
    expect(rowsOf.cash_items!.length).toBeGreaterThan(100);
    expect(rowsOf).toEqual(await ledgerRows(store.db, fromFolder));
    const [run] = await rows<{ dir: string }>(store.db, sql`select counts->>'dir' as dir from import_runs where org_id = ${fromMemory}`);
    expect(run!.dir).toBe('(the demo generator)');
  }, 120_000);
});
