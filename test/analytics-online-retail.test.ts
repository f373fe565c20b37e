/**
 * The analytics checked on real data nobody here wrote: the UCI Online Retail
 * data set (../shared/data/online-retail.csv.gz; 19,960 paid invoices of
 * ~4,300 customers), converted by src/demo/online-retail.ts, imported through
 * the real importer into PGlite, then the nightly baseline job
 * (src/jobs/baselines.ts). Its cohort retention matrix (spec 2.9), ABC split,
 * cadence labels (spec 2.5, 3) and lifetime values (spec 2.5: ltv,
 * projectedLtv) must equal what a straightforward plain loop over the CSV
 * computes here from the rules of docs/analytics.md.
 *
 * The data have no cost lines, so the organisation gets a 40% gross-margin
 * override (spec 2.5: "grossMarginPercent … operator override"). Invoice
 * lines are left out of the import to keep the file's run time down: the
 * analytics read invoice totals, never invoice lines (cost of sales comes
 * from bill lines, and there are no bills here).
 */
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Decimal } from 'decimal.js';
import { convertOnlineRetail } from '../src/demo/online-retail.js';
import { importFiles } from '../src/ledger/import.js';
import { computeBaselines, type BaselineRun } from '../src/jobs/baselines.js';
import { rows } from '../src/store/db.js';
import type { CohortsData } from '../src/domain/analytics/organisation.js';
import { retentionValues } from '../src/domain/analytics/cohorts.js';
import { SCOPES } from '../src/domain/scopes.js';
import { startTestApi, type TestApi } from './helpers/http.js';

const REPO = resolve(import.meta.dirname, '..');
const CSV = resolve(REPO, '..', 'shared', 'data', 'online-retail.csv.gz');
const TODAY = '2011-12-10'; // the day after the last invoice
const NOW = new Date('2011-12-10T12:00:00Z');
const MARGIN = '0.4';

// ---------------------------------------------------------------------------
// The independent reading: its own CSV split, its own grouping, plain loops
// ---------------------------------------------------------------------------

const DAY = 86_400_000;
const dayNo = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY;
const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
};
const addMonth = (m: string, k: number) => {
  const n = Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1 + k;
  return `${Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, '0')}`;
};

interface Customer {
  name: string;
  days: Set<string>;
  revenue: Decimal;
  revenue12: Decimal;
  invoices: number;
  /** month (YYYY-MM) -> revenue */
  byMonth: Map<string, Decimal>;
}

async function plainLoop() {
  const docs = new Map<string, { date: string; customer: string; total: Decimal }>();
  const rl = createInterface({ input: createReadStream(CSV).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line || line.startsWith('InvoiceNo')) continue;
    // fields may be quoted and contain commas (descriptions)
    const f = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((x) => x.replace(/,$/, ''));
    const [inv, , , qty, date, price, cust] = f;
    let d = docs.get(inv!);
    if (!d) docs.set(inv!, (d = { date: date!.slice(0, 10), customer: cust ? `Customer ${Number(cust)}` : 'Walk-in customers', total: new Decimal(0) }));
    d.total = d.total.plus(new Decimal(qty!).times(price!));
  }
  const customers = new Map<string, Customer>();
  const start12 = dayNo(TODAY) - 365;
  for (const [no, d] of docs) {
    if (no.startsWith('C') || d.total.lte(0)) continue; // cancellations and zero/negative documents are not sales
    let c = customers.get(d.customer);
    if (!c) customers.set(d.customer, (c = { name: d.customer, days: new Set(), revenue: new Decimal(0), revenue12: new Decimal(0), invoices: 0, byMonth: new Map() }));
    c.days.add(d.date);
    c.revenue = c.revenue.plus(d.total);
    if (dayNo(d.date) > start12) c.revenue12 = c.revenue12.plus(d.total);
    c.invoices++;
    c.byMonth.set(d.date.slice(0, 7), (c.byMonth.get(d.date.slice(0, 7)) ?? new Decimal(0)).plus(d.total));
  }
  return customers;
}

/** docs/analytics.md "Cadence", "Churn", "ABC", "Lifetime values", written out again. */
function expectedFor(customers: Map<string, Customer>) {
  const cadence = new Map<string, { label: string; confidence: number; gap: number | null }>();
  for (const c of customers.values()) {
    const days = [...c.days].sort();
    const gaps: number[] = [];
    for (let k = 1; k < days.length; k++) gaps.push(dayNo(days[k]!) - dayNo(days[k - 1]!));
    if (gaps.length < 2) {
      cadence.set(c.name, { label: 'NONE', confidence: 0, gap: gaps.length ? gaps[0]! : null });
      continue;
    }
    const m = med(gaps);
    const r = med(gaps.map((g) => Math.abs(g - m))) / m;
    const label = m <= 10 ? 'WEEKLY' : m <= 21 ? 'FORTNIGHTLY' : m <= 45 ? 'MONTHLY' : m <= 135 ? 'QUARTERLY' : m <= 500 ? 'ANNUAL' : 'NONE';
    if (label === 'NONE' || r > 0.6) cadence.set(c.name, { label: 'NONE', confidence: 0, gap: m });
    else cadence.set(c.name, { label, confidence: Math.round(100 * Math.min(1, Math.max(0, 1 - r)) * (gaps.length / (gaps.length + 2))), gap: m });
  }

  // lifetime: median first-to-last span (years) of customers with a cadence, clamped to [1, 5]
  const spans = [...customers.values()]
    .filter((c) => cadence.get(c.name)!.label !== 'NONE')
    .map((c) => {
      const d = [...c.days].sort();
      return (dayNo(d[d.length - 1]!) - dayNo(d[0]!)) / 365.25;
    });
  const lifetime = Math.round(Math.min(5, Math.max(1, spans.length ? med(spans) : 1)) * 100) / 100;

  const churn = new Map<string, string>();
  for (const c of customers.values()) {
    const cad = cadence.get(c.name)!;
    const g = cad.label !== 'NONE' ? cad.gap! : cad.gap !== null ? Math.min(365, Math.max(30, cad.gap)) : 180;
    const last = [...c.days].sort().at(-1)!;
    const overdue = dayNo(TODAY) - dayNo(last) - g;
    churn.set(c.name, overdue <= Math.max(g, 14) ? 'Active' : overdue <= Math.max(3 * g, 60) ? 'At-risk' : 'Churned');
  }

  // ABC: by realised revenue, descending; equal values share the tier of the first of them
  const sorted = [...customers.values()].filter((c) => c.revenue.gt(0)).sort((a, b) => b.revenue.comparedTo(a.revenue));
  const total = sorted.reduce((s, c) => s.plus(c.revenue), new Decimal(0));
  const abc = new Map<string, string>();
  let before = new Decimal(0);
  let prev: { value: Decimal; tier: string } | null = null;
  for (const c of sorted) {
    const tier: string = prev && prev.value.eq(c.revenue) ? prev.tier : before.div(total).lt(0.8) ? 'A' : before.div(total).lt(0.95) ? 'B' : 'C';
    abc.set(c.name, tier);
    prev = { value: c.revenue, tier };
    before = before.plus(c.revenue);
  }

  const factor: Record<string, string> = { Active: '1', 'At-risk': '0.5', Churned: '0' };
  const ltv = new Map<string, { ltv: Decimal; projected: Decimal }>();
  for (const c of customers.values()) {
    ltv.set(c.name, {
      ltv: c.revenue.times(MARGIN).toDecimalPlaces(2, Decimal.ROUND_HALF_UP),
      projected: c.revenue12.times(MARGIN).times(lifetime).times(factor[churn.get(c.name)!]!).toDecimalPlaces(2, Decimal.ROUND_HALF_UP),
    });
  }

  // cohorts: acquisition month = month of the first purchase; active at offset k = bought in month cohort+k
  const cohorts = new Map<string, Customer[]>();
  for (const c of customers.values()) {
    const first = [...c.days].sort()[0]!.slice(0, 7);
    if (!cohorts.has(first)) cohorts.set(first, []);
    cohorts.get(first)!.push(c);
  }
  const matrix = new Map<string, { size: number; counts: (number | null)[] }>();
  for (const [month, list] of cohorts) {
    const counts: (number | null)[] = [];
    for (let k = 0; k < 24; k++) {
      const m = addMonth(month, k);
      if (m > TODAY.slice(0, 7)) counts.push(null);
      else counts.push(list.filter((c) => [...c.days].some((d) => d.startsWith(m))).length);
    }
    matrix.set(month, { size: list.length, counts });
  }
  return { cadence, churn, abc, ltv, lifetime, matrix };
}

// ---------------------------------------------------------------------------

describe('analytics on the Online Retail data set (PGlite)', () => {
  let api: TestApi;
  let key: string;
  let orgId: string;
  let run: BaselineRun;
  let runMs: number;
  let customers: Map<string, Customer>;
  let expected: ReturnType<typeof expectedFor>;
  /** Stored baselines by contact name. */
  let stored: Map<string, { contact_id: string; abc_class: string | null; cadence: string | null; cadence_confidence: number | null; ltv: string | null; details: Record<string, unknown> }>;

  beforeAll(async () => {
    const [out, loop, a] = await Promise.all([convertOnlineRetail(CSV, { lines: false }), plainLoop(), startTestApi('pglite', { now: NOW.toISOString() })]);
    api = a;
    const store = api.store;
    customers = loop;
    expected = expectedFor(customers);
    ({ orgId } = await api.org({ name: 'Online Retail', plan: 'Reserve' }));
    key = await api.key(orgId, SCOPES);
    await importFiles(store.db, orgId, out.files, { now: NOW, acceptLedgerCurrency: true }); // a GBP ledger, the organisation created in AUD
    await store.db.execute(sql`update organisations set gross_margin_override = ${MARGIN} where id = ${orgId}`);
    const t = performance.now();
    run = await computeBaselines(store.db, orgId, NOW);
    runMs = performance.now() - t;
    const b = await rows<{ name: string; contact_id: string; abc_class: string | null; cadence: string | null; cadence_confidence: number | null; ltv: string | null; details: Record<string, unknown> }>(
      store.db,
      sql`select c.name, b.contact_id, b.abc_class, b.cadence, b.cadence_confidence, b.ltv, b.details
        from contact_baselines b join contacts c on c.org_id = b.org_id and c.id = b.contact_id where b.org_id = ${orgId}`,
    );
    stored = new Map(b.map((r) => [r.name, r]));
  }, 600_000);

  afterAll(async () => {
    await api?.close();
  });

  // Speed is measured in bench/analytics.ts, not asserted here; the time is logged.
  it('computes the baselines of ~20,000 invoices on the Europe/London calendar', () => {
    expect(run.invoices).toBe(19_960);
    expect(run.asOfDate).toBe(TODAY);
    console.log(`Online Retail: ${run.invoices} invoices, ${run.contacts} contacts, baselines in ${Math.round(runMs)} ms`, run.timings);
  });

  it('spec 2.9: the cohort retention matrix (customers and retention per acquisition month and offset, null after December 2011) equals the plain loop', async () => {
    const [snap] = await rows<{ payload: CohortsData }>(api.store.db, sql`select payload from derived_snapshots where org_id = ${orgId} and kind = 'cohorts'`);
    const cohorts = snap!.payload.cohorts;
    expect(cohorts.map((c) => c.cohort)).toEqual([...expected.matrix.keys()].sort());
    expect(cohorts).toHaveLength(13); // 2010-12 .. 2011-12
    for (const row of cohorts) {
      const e = expected.matrix.get(row.cohort)!;
      expect(row.customers).toBe(e.size);
      expect(retentionValues(row, 'customers', 24)).toEqual(e.counts);
      expect(retentionValues(row, 'retention', 24)).toEqual(e.counts.map((n) => (n === null ? null : Math.round((n / e.size) * 10_000) / 10_000)));
    }
    expect(snap!.payload.window).toEqual({ from: '2010-12', to: '2011-12' });
  });

  it('spec 2.5: the ABC split (A first 80% of realised revenue, B next 15%, C the rest) equals the plain loop for every customer', () => {
    const dist = { A: 0, B: 0, C: 0 } as Record<string, number>;
    for (const [name, tier] of expected.abc) {
      expect(stored.get(name)?.abc_class, name).toBe(tier);
      dist[tier]!++;
    }
    const classified = [...stored.values()].filter((r) => r.abc_class !== null).length;
    expect(classified).toBe(expected.abc.size);
    // a Pareto shape: about a fifth of the customers make 80% of the revenue
    expect(dist.A! / expected.abc.size).toBeGreaterThan(0.1);
    expect(dist.A! / expected.abc.size).toBeLessThan(0.35);
    console.log('Online Retail ABC split', dist, 'unclassified', stored.size - classified);
  });

  it('spec 2.5/3: cadence labels and confidences equal the plain loop for every customer', () => {
    const labels: Record<string, number> = {};
    for (const [name, e] of expected.cadence) {
      const s = stored.get(name)!;
      expect({ name, cadence: s.cadence, confidence: s.cadence_confidence }).toEqual({ name, cadence: e.label, confidence: e.confidence });
      labels[e.label] = (labels[e.label] ?? 0) + 1;
    }
    expect(labels.MONTHLY).toBeGreaterThan(0);
    console.log('Online Retail cadences', labels);
  });

  it('spec 2.5: lifetime values (ltv = revenue x margin; projectedLtv = trailing-12-month revenue x margin x lifetime x churn factor) equal the plain loop', () => {
    const states: Record<string, number> = {};
    for (const [name, e] of expected.ltv) {
      const s = stored.get(name)!;
      expect(new Decimal(s.ltv!).eq(e.ltv), `${name} ltv`).toBe(true);
      expect(new Decimal(String(s.details.projectedLtv)).eq(e.projected), `${name} projectedLtv`).toBe(true);
      expect(s.details.churnState).toBe(expected.churn.get(name));
      expect(s.details.expectedLifetimeYears).toBe(expected.lifetime);
      states[String(s.details.churnState)] = (states[String(s.details.churnState)] ?? 0) + 1;
    }
    console.log('Online Retail churn states', states, 'lifetime', expected.lifetime);
  });

  // -------------------------------------------------------------------------
  // The same figures through the endpoints (what an agent reads)
  // -------------------------------------------------------------------------

  it('spec 2.9 over HTTP: /cohorts/retention (customers, retention and revenue metrics, 24 periods) equals the plain loop, null after December 2011', async () => {
    const get = async (q: string) => {
      const res = await api.get(`/api/agent/cohorts/retention?${q}`, key);
      expect(res.status).toBe(200);
      return res.json();
    };
    const [customersM, retentionM, revenueM] = await Promise.all([get('metric=customers&periods=24'), get('periods=24'), get('metric=revenue&periods=24')]);
    expect(customersM.periodLabels).toHaveLength(24);
    expect(customersM.cohorts.map((c: { cohort: string }) => c.cohort)).toEqual([...expected.matrix.keys()].sort());
    // revenue per cohort and offset from the plain loop (ex-tax = gross here: the data set has no tax)
    for (const row of customersM.cohorts) {
      const e = expected.matrix.get(row.cohort)!;
      expect(row.customers).toBe(e.size);
      expect(row.values).toEqual(e.counts);
    }
    for (const row of retentionM.cohorts) {
      const e = expected.matrix.get(row.cohort)!;
      expect(row.values).toEqual(e.counts.map((n) => (n === null ? null : Math.round((n / e.size) * 10_000) / 10_000)));
    }
    const revenueOf = new Map<string, (Decimal | null)[]>();
    for (const c of customers.values()) {
      const days = [...c.days].sort();
      const cohort = days[0]!.slice(0, 7);
      if (!revenueOf.has(cohort)) revenueOf.set(cohort, Array.from({ length: 24 }, (_, k) => (addMonth(cohort, k) > TODAY.slice(0, 7) ? null : new Decimal(0))));
    }
    for (const c of customers.values()) {
      const cohort = [...c.days].sort()[0]!.slice(0, 7);
      const list = revenueOf.get(cohort)!;
      for (const [m, amount] of c.byMonth) {
        const k = (Number(m.slice(0, 4)) - Number(cohort.slice(0, 4))) * 12 + Number(m.slice(5, 7)) - Number(cohort.slice(5, 7));
        if (k < 24) list[k] = list[k]!.plus(amount);
      }
    }
    for (const row of revenueM.cohorts) {
      const e = revenueOf.get(row.cohort)!;
      expect(row.values.map((v: string | null) => (v === null ? null : new Decimal(v).toFixed(2))), row.cohort).toEqual(e.map((d) => (d === null ? null : d.toFixed(2))));
    }
  });

  it('spec 2.8 over HTTP: /contacts/summary abcDistribution equals the plain-loop ABC split; /cohorts/summary windows the 13 cohorts', async () => {
    const res = await api.get('/api/agent/contacts/summary?topN=100', key);
    expect(res.status).toBe(200);
    const body = await res.json();
    const dist = { A: 0, B: 0, C: 0 } as Record<string, number>;
    for (const tier of expected.abc.values()) dist[tier]!++;
    expect({ A: body.abcDistribution.A, B: body.abcDistribution.B, C: body.abcDistribution.C }).toEqual(dist);
    // topByRevenue: the 100 largest ltv = revenue x 0.4, in order
    const top = [...expected.ltv].sort((a, b) => b[1].ltv.comparedTo(a[1].ltv)).slice(0, 100);
    expect(body.topByRevenue.map((r: { amount: string }) => new Decimal(r.amount).toFixed(2))).toEqual(top.map(([, v]) => v.ltv.toFixed(2)));
    const cs = await (await api.get('/api/agent/cohorts/summary', key)).json();
    expect(cs.window).toEqual({ from: '2010-12', to: '2011-12' });
    expect(cs.kpis.newCustomers.value).toBe([...expected.matrix].filter(([m]) => m >= '2011-07').reduce((n, [, e]) => n + e.size, 0));
  });

  it('spec 2.5/4.5 over HTTP: the contact drill of 40 customers across tiers and cadences equals the plain loop (revenue, cadence, tier, both LTVs)', async () => {
    const ids = await rows<{ id: string; name: string }>(
      api.store.db,
      sql`select c.id, c.name from contacts c join contact_baselines b on b.org_id = c.org_id and b.contact_id = c.id
        where c.org_id = ${orgId} and c.name <> 'Walk-in customers' order by md5(c.id) limit 40`,
    );
    expect(ids).toHaveLength(40);
    for (const { id, name } of ids) {
      const res = await api.get(`/api/agent/contacts/${id}`, key);
      expect(res.status, name).toBe(200);
      const d = (await res.json()).contact;
      const c = customers.get(name)!;
      const cad = expected.cadence.get(name)!;
      const ltv = expected.ltv.get(name)!;
      expect({ name, revenueAllTime: new Decimal(d.revenueAllTime).toFixed(2), cadence: d.cadence, confidence: d.cadenceConfidence, abc: d.abcClass }).toEqual({
        name,
        revenueAllTime: c.revenue.toFixed(2),
        cadence: cad.label,
        confidence: cad.confidence,
        abc: expected.abc.get(name) ?? null,
      });
      expect(new Decimal(d.historicalLtv).toFixed(2), name).toBe(ltv.ltv.toFixed(2));
      expect(new Decimal(d.projectedLtv).toFixed(2), name).toBe(ltv.projected.toFixed(2));
      expect(d.expectedLifetimeYears).toBe(expected.lifetime);
    }
  });
});
