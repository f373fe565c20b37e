/**
 * Builds a large organisation on PostgreSQL for the list benchmarks:
 * 200,000 invoices and 200,000 bills with 3 lines each (1.2 M lines), 20,000
 * contacts (5% sensitive), a chart of accounts with one sensitive account
 * (about 1% of lines use it), spread over three years. Everything is
 * generated inside PostgreSQL with generate_series in chunks (progress on
 * stderr), then VACUUM ANALYZE so index-only scans and plans are realistic.
 *
 * Usage: npx tsx bench/gen-large-org.ts [--force]
 * Env:   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
 *        BENCH_SCHEMA (default cashline_bench)
 * The data lives in its own schema; --force drops and rebuilds it.
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openStore, rows, type Db, type Store } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { createKey, createOrg } from '../src/store/tenancy.js';
import { SCOPES } from '../src/domain/scopes.js';

export const BENCH_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const BENCH_SCHEMA = process.env.BENCH_SCHEMA ?? 'cashline_bench';
export const BENCH_ORG = 'bench-org';
const NOW = new Date('2026-03-01T00:00:00Z');

export interface GenOptions {
  invoices: number;
  bills: number;
  contacts: number;
  linesPerItem: number;
}

export const DEFAULT_GEN: GenOptions = { invoices: 200_000, bills: 200_000, contacts: 20_000, linesPerItem: 3 };

const log = (msg: string) => process.stderr.write(`[gen] ${msg}\n`);

export async function openBenchStore(poolSize = 40): Promise<Store> {
  const admin = new pg.Client({ connectionString: BENCH_URL });
  await admin.connect();
  await admin.query(`create schema if not exists ${BENCH_SCHEMA}`);
  await admin.end();
  const store = await openStore({ databaseUrl: BENCH_URL, searchPath: BENCH_SCHEMA, poolSize });
  await migrate(store.db);
  return store;
}

export async function dropBenchSchema(): Promise<void> {
  const admin = new pg.Client({ connectionString: BENCH_URL });
  await admin.connect();
  await admin.query(`drop schema if exists ${BENCH_SCHEMA} cascade`);
  await admin.end();
}

export async function benchOrgExists(db: Db): Promise<boolean> {
  const r = await rows<{ n: number }>(db, sql`select count(*)::int8 as n from cash_items where org_id = ${BENCH_ORG}`);
  return Number(r[0]?.n ?? 0) > 0;
}

async function chunked(label: string, total: number, chunk: number, run: (from: number, to: number) => Promise<unknown>) {
  const t0 = Date.now();
  for (let from = 1; from <= total; from += chunk) {
    const to = Math.min(total, from + chunk - 1);
    await run(from, to);
    log(`${label}: ${to}/${total} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
}

export async function generateLargeOrg(db: Db, o: GenOptions = DEFAULT_GEN): Promise<void> {
  const t0 = Date.now();
  await createOrg(db, { id: BENCH_ORG, name: 'Bench Large Pty Ltd', plan: 'Reserve', now: NOW });
  // A second, small organisation: every query must filter by org_id.
  await createOrg(db, { id: 'bench-other', name: 'Bench Other Ltd', now: NOW });

  // Chart of accounts: 20 revenue/expense codes, one sensitive, plus two bank accounts.
  await db.execute(sql`insert into accounts (org_id, id, code, name, type, class, is_sensitive, last_synced_at)
    select ${BENCH_ORG}, md5('acct' || g)::uuid::text, (200 + g * 10)::text, 'Account ' || g,
      case when g <= 10 then 'REVENUE' else 'EXPENSE' end, case when g <= 10 then 'REVENUE' else 'EXPENSE' end,
      g = 13, ${NOW.toISOString()}::timestamptz
    from generate_series(1, 20) g`);
  // The GST account (Xero's SystemAccount GST): without journals the forecast reads its lines from the 400,000 documents' tax.
  await db.execute(sql`insert into accounts (org_id, id, code, name, type, class, system_account, last_synced_at)
    values (${BENCH_ORG}, md5('acct-gst')::uuid::text, '820', 'GST', 'CURRLIAB', 'LIABILITY', 'GST', ${NOW.toISOString()}::timestamptz)`);

  // Contacts: the first half customers, the second suppliers, every 10th both; 5% sensitive.
  await chunked('contacts', o.contacts, 20_000, (from, to) =>
    db.execute(sql`insert into contacts (org_id, id, name, is_customer, is_supplier, is_sensitive, last_synced_at)
      select ${BENCH_ORG}, md5('contact' || g)::uuid::text, 'Contact ' || g || ' Pty Ltd',
        g <= ${o.contacts / 2} or g % 10 = 0, g > ${o.contacts / 2} or g % 10 = 0, g % 20 = 7,
        ${NOW.toISOString()}::timestamptz - (g % 5000) * interval '1 minute'
      from generate_series(${from}::int, ${to}::int) g`),
  );

  const items = async (label: string, n: number, source: string, type: string, prefix: string, contactBase: number) => {
    await chunked(label, n, 50_000, async (from, to) => {
      await db.execute(sql`insert into cash_items (org_id, id, source, ledger_type, number, reference, contact_id, ledger_status, status,
          currency, currency_rate, issue_date, due_date, paid_date, sort_date, sub_total, total_tax, total, amount_due, amount_paid,
          amount_credited, last_synced_at)
        select ${BENCH_ORG}, md5(${prefix} || g)::uuid::text, ${source}, ${type}, ${prefix} || '-' || lpad(g::text, 6, '0'),
          'Ref ' || (g % 1000), md5('contact' || (${contactBase} + (g * 7919) % ${o.contacts / 2} + 1))::uuid::text,
          st, case st when 'PAID' then 'ACTUAL' when 'VOIDED' then 'CANCELLED' when 'DELETED' then 'CANCELLED' else 'FORECAST' end,
          cur, case when cur = 'AUD' then null else 0.65 end,
          d, d + 30, case when st = 'PAID' then d + (g % 45) end, d,
          amt, round(amt / 10, 2), round(amt * 1.1, 2), case when st = 'PAID' then 0 else round(amt * 1.1, 2) end,
          case when st = 'PAID' then round(amt * 1.1, 2) else 0 end, 0, ${NOW.toISOString()}::timestamptz
        from (select g, date '2023-03-01' + (g % 1095) as d, ((g * 37) % 500000) / 100.0 + 10 as amt,
            case when g % 100 < 70 then 'PAID' when g % 100 < 90 then 'AUTHORISED' when g % 100 < 95 then 'DRAFT'
                 when g % 100 < 98 then 'VOIDED' when g % 100 < 99 then 'DELETED' else 'SUBMITTED' end as st,
            case when g % 33 = 0 then 'USD' when g % 67 = 0 then 'NZD' else 'AUD' end as cur
          from generate_series(${from}::int, ${to}::int) g) x`);
      await db.execute(sql`insert into cash_item_lines (org_id, item_id, line_number, id, description, quantity, unit_amount, line_amount,
          tax_amount, tax_type, account_code, discount_rate)
        select ${BENCH_ORG}, md5(${prefix} || g)::uuid::text, ln, md5(${prefix} || g || ':' || ln)::uuid::text, 'Line ' || ln || ' of ' || g,
          (g % 5) + 1, round((((g * 37) % 500000) / 100.0 + 10) / 3 / ((g % 5) + 1), 4), round((((g * 37) % 500000) / 100.0 + 10) / 3, 2),
          round((((g * 37) % 500000) / 100.0 + 10) / 30, 2), 'OUTPUT',
          -- ~3% of items have a line on the sensitive account 330; the other lines rotate over the 19 other codes.
          case when (g + ln) % 97 = 0 then '330'
               else (200 + ((g + ln) % 19 + case when (g + ln) % 19 >= 12 then 2 else 1 end) * 10)::text end,
          case when g % 9 = 0 then 0.1 end
        from generate_series(${from}::int, ${to}::int) g, generate_series(1, ${o.linesPerItem}) ln`);
    });
  };
  await items('invoices', o.invoices, 'LEDGER_INVOICE', 'ACCREC', 'INV', 0);
  await items('bills', o.bills, 'LEDGER_BILL', 'ACCPAY', 'BILL', o.contacts / 2);

  log('vacuum analyze');
  for (const t of ['contacts', 'accounts', 'cash_items', 'cash_item_lines']) await db.execute(sql.raw(`vacuum analyze ${t}`));
  log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Keys for the benchmark: one with every scope (READ_SENSITIVE included), one without READ_SENSITIVE. */
export async function benchKeys(db: Db): Promise<{ full: string; gated: string }> {
  const full = await createKey(db, { orgId: BENCH_ORG, scopes: [...SCOPES], name: 'bench full', now: new Date() });
  const gated = await createKey(db, { orgId: BENCH_ORG, scopes: SCOPES.filter((s) => s !== 'READ_SENSITIVE'), name: 'bench gated', now: new Date() });
  return { full: full.key, gated: gated.key };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--force')) await dropBenchSchema();
  const store = await openBenchStore();
  if (await benchOrgExists(store.db)) log(`${BENCH_SCHEMA} already holds ${BENCH_ORG} (use --force to rebuild)`);
  else await generateLargeOrg(store.db);
  await store.close();
}
