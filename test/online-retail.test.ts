/**
 * The Online Retail converter (issue 2, "Demo data": "a script that turns
 * ../shared/data/online-retail.csv.gz into Xero-shaped invoices for a second
 * organisation; tests use it"), checked against an independent plain loop over
 * the CSV, and imported through the real importer on both backends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Decimal } from 'decimal.js';
import { convertOnlineRetail, type OnlineRetailOutput } from '../src/demo/online-retail.js';
import { writeXeroFiles } from '../src/demo/generate.js';
import { importDirectory } from '../src/ledger/import.js';
import { createOrg } from '../src/store/tenancy.js';
import { rows } from '../src/store/db.js';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';

const CSV = resolve(import.meta.dirname, '..', '..', 'shared', 'data', 'online-retail.csv.gz');

/** The independent reading: a plain loop, its own CSV split, its own grouping. */
async function plainLoop(maxRows = Infinity) {
  const totals = new Map<string, Decimal>();
  const customers = new Set<string>();
  let n = 0;
  const rl = createInterface({ input: createReadStream(CSV).pipe(createGunzip()) });
  for await (const line of rl) {
    if (line.startsWith('InvoiceNo')) continue;
    if (n++ >= maxRows) break;
    const f = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((x) => x.replace(/,$/, ''));
    const [inv, , , qty, , price, cust] = f;
    totals.set(inv!, (totals.get(inv!) ?? new Decimal(0)).plus(new Decimal(qty!).times(price!)));
    if (cust) customers.add(cust);
  }
  let invoices = 0;
  let credits = 0;
  let revenue = new Decimal(0);
  for (const [inv, total] of totals) {
    if (inv.startsWith('C')) {
      if (total.lt(0)) credits++;
    } else if (total.gt(0)) {
      invoices++;
      revenue = revenue.plus(total);
    }
  }
  return { invoices, credits, revenue, customers: customers.size };
}

const invoicesOf = (out: OnlineRetailOutput) => (out.files['Invoices.json'] as { Invoices: { Total: number; LineItems: unknown[] }[] }[]).flatMap((p) => p.Invoices);

describe('Online Retail converter', () => {
  it('converts the whole file: counts and revenue equal an independent plain loop over the CSV', async () => {
    const [out, expected] = await Promise.all([convertOnlineRetail(CSV), plainLoop()]);
    expect(out.counts.rows).toBe(541_909);
    expect(out.counts.invoices).toBe(expected.invoices);
    expect(out.counts.creditNotes).toBe(expected.credits);
    const revenue = invoicesOf(out).reduce((a, i) => a.plus(String(i.Total)), new Decimal(0));
    expect(revenue.toFixed()).toBe(expected.revenue.toFixed());
    // customers with a CustomerID, plus the one walk-in contact when anonymous sales remain
    expect(out.counts.customers - 1).toBeLessThanOrEqual(expected.customers);
    expect(out.counts.customers).toBeGreaterThan(4_000);
  }, 120_000);

  it('a missing file fails the read with the file system\'s error at once (it used to wait for ever)', async () => {
    await expect(convertOnlineRetail(`${CSV}.missing`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('is deterministic (ids are hashes of the source keys)', async () => {
    const a = await convertOnlineRetail(CSV, { maxRows: 3_000 });
    const b = await convertOnlineRetail(CSV, { maxRows: 3_000 });
    expect(JSON.stringify(a.files)).toBe(JSON.stringify(b.files));
  });

  it('without lines ({ lines: false }: the replays, the analytics): the same documents, totals and counts, no LineItems', async () => {
    const [withLines, without] = await Promise.all([convertOnlineRetail(CSV, { maxRows: 3_000 }), convertOnlineRetail(CSV, { maxRows: 3_000, lines: false })]);
    const stripped = JSON.parse(JSON.stringify(withLines.files, (key, value: unknown) => (key === 'LineItems' ? undefined : value)));
    expect(JSON.stringify(withLines.files)).toContain('"LineItems"');
    expect(JSON.stringify(without.files)).not.toContain('"LineItems"');
    expect(without.files).toEqual(stripped);
    expect(without.counts).toEqual(withLines.counts);
  });
});

describe.each(BACKENDS)('Online Retail imported on %s', (kind) => {
  let store: TestStore;
  let out: OnlineRetailOutput;
  let dir: string;
  beforeAll(async () => {
    store = await freshStore(kind);
    out = await convertOnlineRetail(CSV, { maxRows: 40_000 });
    dir = mkdtempSync(join(tmpdir(), 'cashline-retail-'));
    writeXeroFiles(dir, out.files);
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports as a second organisation in GBP and Europe/London with every invoice, line and payment', async () => {
    const { orgId } = await createOrg(store.db, { name: 'Online Retail', now: new Date('2012-01-01T00:00:00Z') });
    // The organisation is created with the default AUD; the ledger is in GBP: taken only when accepted, and reported.
    const summary = await importDirectory(store.db, orgId, dir, { now: new Date('2012-01-01T00:00:00Z'), acceptLedgerCurrency: true });
    expect(summary.baseCurrencyChanged).toEqual({ from: 'AUD', to: 'GBP' });
    const [org] = await rows<{ base_currency: string; timezone: string }>(store.db, sql`select base_currency, timezone from organisations where id = ${orgId}`);
    expect(org).toEqual({ base_currency: 'GBP', timezone: 'Europe/London' });
    const [c] = await rows<{ invoices: number; revenue: string; paid: string }>(
      store.db,
      sql`select count(*)::int8 as invoices, sum(total)::text as revenue,
                 (select sum(amount) from payments where org_id = ${orgId})::text as paid
          from cash_items where org_id = ${orgId} and source = 'LEDGER_INVOICE'`,
    );
    const inv = invoicesOf(out);
    const revenue = inv.reduce((a, i) => a.plus(String(i.Total)), new Decimal(0));
    expect(c!.invoices).toBe(out.counts.invoices);
    expect(new Decimal(c!.revenue).equals(revenue)).toBe(true);
    expect(new Decimal(c!.paid).equals(revenue)).toBe(true);
    const [l] = await rows<{ n: number }>(store.db, sql`select count(*)::int8 as n from cash_item_lines where org_id = ${orgId}`);
    const lines = inv.reduce((a, i) => a + i.LineItems.length, 0) + (out.files['CreditNotes.json'] as { CreditNotes: { LineItems: unknown[] }[] }[]).flatMap((p) => p.CreditNotes).reduce((a, cn) => a + cn.LineItems.length, 0);
    expect(l!.n).toBe(lines);
  }, 120_000);
});
