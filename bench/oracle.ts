/**
 * How well could anyone forecast the demo's receipts? (issue 17;
 * docs/forecast.md#oracle). The demo generator records what it drew for each
 * customer (DemoOutput.truth): its cadence, typical order, terms, whether it
 * pays late, when it arrived and when it leaves, how many one-off orders it
 * places. An oracle that knows all of that, and every receipt that is not a
 * customer's payment, still cannot know the draws the generator has yet to
 * make: when exactly the next order comes, what it is for, when it is paid.
 * From each cut-off it draws many futures with the generator's own draw
 * functions (src/demo/sales.ts) and reads its P10/P50/P90 from them.
 *
 * Its receipts pinball (the backtest's definition) is a floor: no forecast of
 * these ledgers, which must learn those habits from the books, can be expected
 * to beat it. Printed beside the best baseline's from the backtest on the same
 * cut-offs, so the goal (Cashline at most 0.85 times the best
 * baseline) can be read against what is possible at all. Also the oracle's
 * WAPE of the invoices open at each cut-off (its expected receipts of them,
 * week by week), the floor of the open-receivables goals.
 *
 * The demo is generated as `npm start` generates it (bench/bands.ts's
 * bench_bands_demo schema holds its books; imported first when missing).
 *
 * With --learnt the oracle learns what Cashline has to learn, from each
 * customer's invoices before the cut-off, and keeps the rest: its typical
 * order (the mean of its last 6 invoices, season, growth and GST taken out),
 * its cadence (the median of its last 13 gaps between invoices: skipped
 * orders are not in the books) and its payment delays (its last 12, each
 * drawn with probability n / (n + 2), else one of everyone's: Cashline's
 * prior of two invoices; each give or take a normal of two days).
 *
 * --seeds 1,2,3 also replays the demo's businesses generated with those seeds
 * (bench/bands.ts's, each in its schema; imported first when missing).
 *
 * Usage: npx tsx bench/oracle.ts [--futures N] [--only wholesaler|roaster] [--learnt] [--seeds 1,2,3] (or npm run bench -- oracle)
 * Env:   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { openStore } from '../src/store/db.js';
import { orgMeta } from '../src/store/queries/organisation.js';
import { loadRawLedger } from '../src/store/queries/raw-ledger.js';
import { backtestLedger } from '../src/backtest/index.js';
import { indexLedger } from '../src/backtest/replay.js';
import { actualWeeks } from '../src/domain/forecast/actuals.js';
import { Scorer } from '../src/domain/forecast/metrics.js';
import { quantileOf } from '../src/domain/forecast/calibrate.js';
import { generateDemo, type CustomerTruth } from '../src/demo/generate.js';
import { cadenceGap, CREDIT_ALLOCATED, CREDIT_SHARES, CREDITED, invoiceLines, orderScale, orderTarget, paymentDelay, SKIPPED, VOIDED } from '../src/demo/sales.js';
import { DEMO_ORGS } from '../src/server/demo.js';
import { bestBaselinePinball, DEMO_NOW, DEMO_SCHEMA, DEMO_TODAY, demoBusinessOfSeed, LAST_TWO_YEARS, loadDemo, readyLedger } from './demo-replays.js';
import type { Db } from '../src/store/db.js';
import { Rng } from '../src/domain/random.js';
import { D } from '../src/domain/money.js';
import { BENCH_URL } from './gen-large-org.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const FUTURES = Number(opt('--futures') ?? 400);
const only = opt('--only');
/** The oracle learns each customer's typical order, cadence and payment delays from its invoices before the cut-off, as Cashline must. */
const LEARNT = args.includes('--learnt');
const log = (m: string) => process.stderr.write(`[oracle] ${m}\n`);

const DAY_MS = 86_400_000;
const epochDay = (iso: string) => Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
const isoOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const WEEKS = 13;
const demo = { schema: DEMO_SCHEMA, load: (db: Db) => loadDemo(db, log) };
/** The demo's businesses generated with other seeds (--seeds 1,2,3; none by default), as bench/bands.ts replays them. */
const SEEDS = (opt('--seeds') ?? '')
  .split(',')
  .filter((x) => /^\d+$/.test(x))
  .map(Number);
const REPLAYS = [
  { name: 'Demo wholesaler, weekly 2024-11-25..2026-08-17 (the last two years)', org: DEMO_ORGS[0], ...demo, ...LAST_TWO_YEARS },
  { name: 'Demo roaster, weekly 2024-11-25..2026-08-17', org: DEMO_ORGS[1], ...demo, ...LAST_TWO_YEARS },
  ...SEEDS.flatMap((seed) =>
    ([0, 1] as const).map((which) => {
      const b = demoBusinessOfSeed(which, seed);
      return { name: `${which === 0 ? 'Demo wholesaler' : 'Demo roaster'} of seed ${seed}, weekly 2024-11-25..2026-08-17`, org: b.generate, schema: b.schema, load: b.load, ...LAST_TWO_YEARS };
    }),
  ),
];

/** The generator's random source, but for its ids, which no amount depends on (cheap: the lines' ids are most of an order's draws). */
class AmountsRng extends Rng {
  override guid(): string {
    return '';
  }
}

/** What is known of a customer at a cut-off: its order days before it (the all-knowing oracle), or what its invoices before it show (--learnt). */
interface Known {
  c: CustomerTruth;
  orders: number;
  last: number | null;
  /** What --learnt knows instead: from its invoices before the cut-off (null without enough of them). */
  size: number | null;
  period: number | null;
  lastInvoice: number | null;
  delays: number[];
}

/** Draws futures of a customer's receipts from a cut-off on, knowing its habits. */
class Oracle {
  private readonly rng = new AmountsRng(20_261_127);
  /** Everyone's payment delays known at the cut-off (--learnt). */
  orgDelays: number[] = [];
  constructor(private readonly start: number, private readonly asOf: number) {}

  /** A payment's days past due: the customer's habit, or (--learnt) one of its own past delays, shrunk toward everyone's. */
  private delay(k: Known): number {
    if (LEARNT) {
      const own = k.delays;
      const pool = this.rng.next() < own.length / (own.length + 2) ? own : this.orgDelays;
      // Smoothed: a past delay give or take a normal of two days (the few delays a customer has are a sample of its habit).
      if (pool.length) return pool[Math.floor(this.rng.next() * pool.length)]! + Math.round(this.rng.normal(0, 2));
    }
    return paymentDelay(this.rng, k.c.latePayer);
  }

  /** A delay that pays on or after `min` days past due (an invoice still open at the cut-off). */
  private delayAtLeast(k: Known, min: number): number {
    for (let i = 0; i < 10_000; i++) {
      const d = this.delay(k);
      if (d >= min) return d;
    }
    return min;
  }

  /** An order's owed amount in AUD cents (0 when voided), as the generator makes it. */
  private owed(k: Known, day: number): number {
    const { rng } = this;
    const c = k.c;
    const size = LEARNT && k.size !== null ? k.size : c.orderSize;
    const { sub, tax } = invoiceLines(rng, orderTarget(rng, size, day, this.start), c.foreign);
    if (rng.chance(VOIDED)) return 0;
    let owed = sub + tax;
    if (rng.chance(CREDITED)) {
      const cnSub = Math.round(sub * rng.pick(CREDIT_SHARES));
      const cnTotal = cnSub + (c.foreign ? 0 : Math.round(cnSub / 10));
      if (rng.chance(CREDIT_ALLOCATED)) owed -= cnTotal;
    }
    return Math.round(owed / c.rate);
  }

  /** One future of a customer from cut-off C: `put(day, cents)` for each payment; `open` for its invoices open at C. */
  future(k: Known, C: number, end: number, put: (day: number, cents: number, open: boolean) => void): void {
    const { rng } = this;
    const learnt = LEARNT && k.c.cadenceDays !== 0 && k.period !== null;
    const c = learnt ? { ...k.c, cadenceDays: k.period! } : k.c;
    const orders = k.orders;
    const last = learnt ? k.lastInvoice : k.last;
    for (const inv of c.invoices) if (inv.day < C && (inv.paid === null || inv.paid >= C)) put(inv.due + this.delayAtLeast(k, C - inv.due), inv.owed, true);
    const order = (day: number) => {
      const owed = this.owed(k, day);
      if (owed) put(day + c.terms + this.delay(k), owed, false);
    };
    if (c.cadenceDays && c.leaves !== null && c.leaves <= C) return; // gone: orders no more
    if (c.cadenceDays) {
      let d = c.acquired;
      if (last !== null) {
        // The next order after the last one before C, given it did not come before C.
        let gap = cadenceGap(rng, c.cadenceDays);
        for (let i = 0; i < 10_000 && last + gap < C; i++) gap = cadenceGap(rng, c.cadenceDays);
        d = Math.max(last + gap, C);
      }
      for (; d < end && d <= this.asOf && (c.leaves === null || d < c.leaves); d += cadenceGap(rng, c.cadenceDays)) {
        if (d >= C && !rng.chance(SKIPPED)) order(d);
      }
    } else {
      // One-off orders: the first on arrival, the others 20-400 days later (those not yet placed: from C on).
      for (let i = orders; i < c.oneOffOrders; i++) {
        const lo = i === 0 ? c.acquired : Math.max(c.acquired + 20, C);
        const hi = i === 0 ? c.acquired : c.acquired + 400;
        if (hi < lo) continue;
        const day = rng.int(lo, hi);
        if (day >= C && day <= this.asOf) order(day);
      }
    }
  }
}

console.log('| replay | cut-offs | receipts pinball: oracle / cashline / best baseline | oracle vs best baseline | cashline vs oracle | oracle coverage80 | open receivables WAPE: oracle / cashline / median_delay |');
console.log('|---|---|---|---|---|---|---|');
for (const r of REPLAYS) {
  if (only && !r.name.toLowerCase().includes(only.toLowerCase())) continue;
  await readyLedger({ schema: r.schema, orgId: r.org.id, load: r.load }, { log });
  const store = await openStore({ databaseUrl: BENCH_URL, searchPath: r.schema, poolSize: 2 });
  const raw = await loadRawLedger(store.db, (await orgMeta(store.db, r.org.id))!);
  await store.close();
  const ix = indexLedger(raw);
  const truth = generateDemo({ seed: r.org.seed, asOf: DEMO_NOW, scale: r.org.scale, name: r.org.name, profile: r.org.profile }).truth;
  const oracle = new Oracle(truth.start, truth.asOf);
  const t0 = Date.now();
  // Scored as the backtest scores (money in AUD): receipts by the futures' quantiles, the open invoices' by their expected receipts.
  const receipts = new Scorer();
  const open = new Scorer();
  const aud = (cents: number) => new D(Math.round(cents)).div(100);
  let cutoffs = 0;
  for (let C = epochDay(r.from); C <= epochDay(r.to); C += 7, cutoffs++) {
    const end = C + 7 * WEEKS;
    const week = (day: number) => (day >= C && day < end ? Math.floor((day - C) / 7) : -1);
    // The generator's own customer receipts per week; the rest of the ledger's receipts are given to the oracle.
    const customers = Array<number>(WEEKS).fill(0);
    const openActual = Array<number>(WEEKS).fill(0);
    for (const c of truth.customers) {
      for (const inv of c.invoices) {
        const k = inv.paid === null ? -1 : week(inv.paid);
        if (k < 0) continue;
        customers[k]! += inv.owed;
        if (inv.day < C) openActual[k]! += inv.owed;
      }
    }
    const actual = actualWeeks(ix.movements, isoOf(C), new D(0), WEEKS).map((w) => Math.round(w.receipts.toNumber() * 100));
    const known: Known[] = truth.customers.map((c) => {
      const before = c.orderDays.filter((o) => o.day < C);
      const invoices = c.invoices.filter((i) => i.day < C);
      const recent = invoices.slice(-6);
      // An invoice's owed over what one unit of typical order would owe on its day (GST on, the noise's mean e^0.02).
      const perUnit = (day: number) => (orderScale(day, truth.start) * Math.exp(0.02) * (c.foreign ? 1 : 1.1)) / c.rate;
      const gaps = invoices
        .slice(-14)
        .map((x, j, a) => (j ? x.day - a[j - 1]!.day : 0))
        .filter((g) => g > 0)
        .sort((a, b) => a - b);
      return {
        c,
        orders: before.length,
        last: before.length ? before[before.length - 1]!.day : null,
        size: recent.length ? recent.reduce((a, i) => a + i.owed / perUnit(i.day), 0) / recent.length : null,
        period: gaps.length >= 2 ? gaps[gaps.length >> 1]! : null,
        lastInvoice: invoices.length ? invoices[invoices.length - 1]!.day : null,
        delays: c.invoices
          .filter((i) => i.paid !== null && i.paid < C)
          .map((i) => i.paid! - i.due)
          .slice(-12),
      };
    });
    oracle.orgDelays = known.flatMap((k) => k.delays);
    const futures = Array.from({ length: WEEKS }, () => new Float64Array(FUTURES));
    const openExpected = Array<number>(WEEKS).fill(0);
    for (let f = 0; f < FUTURES; f++) {
      for (const k of known) {
        oracle.future(k, C, end, (day, cents, open) => {
          const w = week(day);
          if (w < 0) return;
          futures[w]![f]! += cents;
          if (open) openExpected[w]! += cents / FUTURES;
        });
      }
    }
    for (let k = 0; k < WEEKS; k++) {
      const other = actual[k]! - customers[k]!;
      const xs = [...futures[k]!].map((x) => x + other).sort((a, b) => a - b);
      const [p10, p50, p90] = [0.1, 0.5, 0.9].map((q) => quantileOf(xs, q) / 100) as [number, number, number];
      receipts.add(aud(xs.reduce((a, x) => a + x, 0) / xs.length), aud(actual[k]!), { p10, p50, p90 });
      const e = openExpected[k]! / 100;
      open.add(aud(openExpected[k]!), aud(openActual[k]!), { p10: e, p50: e, p90: e });
    }
    process.stderr.write(`\r[oracle] ${r.name}: cut-off ${cutoffs + 1}`);
  }
  process.stderr.write(` (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  const b = backtestLedger(raw, { from: r.from, to: r.to, everyDays: 7, today: DEMO_TODAY, diagnostics: true });
  const best = bestBaselinePinball(b);
  const o = receipts.metric().pinball;
  const cash = b.methods.cashline.receipts.pinball;
  const f = (x: number) => x.toFixed(3);
  console.log(
    `| ${r.name}${LEARNT ? ' (the oracle learns the habits)' : ''} | ${cutoffs} | ${f(o)} / ${f(cash)} / ${f(best)} | ${(o / best).toFixed(2)}x | ${(cash / o).toFixed(2)}x | ${f(receipts.metric().coverage80)} ` +
      `| ${f(open.metric().wape)} / ${f(b.diagnostics!.openReceivables.cashline.wape)} / ${f(b.diagnostics!.openReceivables.median_delay.wape)} |`,
  );
}
