/**
 * The backtest (issue 9: "at each cut-off it forecasts using only what was
 * known then ... compares each of the 13 weeks with the cash that actually
 * moved; it reports per method weekly MAE and WAPE of receipts, payments and
 * closing cash, for cashline and two baselines"; goal: receipts WAPE at least
 * 30% below the due-date baseline and below the median-delay baseline).
 *
 * The engine is tuned on synthetic ledgers (src/backtest/synthetic.ts, seeds
 * 1-3); this test uses another seed. The demo and the Online Retail data are
 * never tuned on: their figures are printed and only checked to beat the
 * due-date baseline (docs/forecast.md#backtest reports them).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import type { Db, StoreKind } from '../src/store/db.js';
import type { SyntheticLedger } from '../src/backtest/synthetic.js';
import { importOnlineRetail, loadShop, loadSynthetic, RETAIL_NOW, SYNTH_AS_OF, SYNTH_NOW } from './helpers/replay-ledgers.js';
import { backtestLedger, runBacktest, type BacktestOptions, type BacktestResult } from '../src/backtest/index.js';
import { indexLedger, inputAt } from '../src/backtest/replay.js';
import { orgMeta } from '../src/store/queries/organisation.js';
import { loadRawLedger, type RawLedger } from '../src/store/queries/raw-ledger.js';
import { prepareForecast } from '../src/domain/forecast/engine.js';
import { projectForecast } from '../src/domain/forecast/project.js';
import { median } from '../src/domain/forecast/behaviour.js';
import { isCanonical, dec } from '../src/domain/money.js';
import { toDay } from '../src/domain/forecast/days.js';
import { storeWith } from './helpers/fixtures.js';
import { demoFixture } from './helpers/demo-books.js';
import { DEMO_ORGS } from '../src/server/demo.js';
import { expectGenerated } from './helpers/generated-docs.js';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');


function checkShape(r: BacktestResult, cutoffs: number) {
  expect(Object.keys(r).sort()).toEqual(['cushion', 'cutoffs', 'methods', 'shortfall', 'shortfallAnyWeek', 'weeks']);
  expect(r.cutoffs).toBe(cutoffs);
  expect(r.weeks).toBe(13);
  expect(Object.keys(r.methods).sort()).toEqual(['cashline', 'due_date', 'median_delay', 'naive_run_rate']);
  for (const [name, m] of Object.entries(r.methods)) {
    expect(Object.keys(m).sort()).toEqual(name === 'cashline' ? ['byHorizon', 'closing', 'payments', 'receipts'] : ['closing', 'payments', 'receipts']);
    for (const x of [m.receipts, m.payments, m.closing]) {
      expect(isCanonical(x.mae)).toBe(true);
      for (const v of [x.wape, x.pinball, x.coverage80, x.width80]) expect(Number.isFinite(v)).toBe(true);
    }
  }
  // Each horizon week's cells are held by the band, below its P10 or above its P90 (each share rounded to 4 places).
  for (const h of Object.values(r.methods.cashline.byHorizon).flat()) {
    expect(Object.keys(h).sort()).toEqual(['above90', 'below10', 'coverage80', 'wape', 'week']);
    expect(h.below10 + h.coverage80 + h.above90).toBeCloseTo(1, 3);
  }
  expect(r.shortfall.cells).toBe(cutoffs * 13);
  // Over the 13 weeks, one cell per cut-off: the shortfall's probability and whether its cushion covered what happened.
  expect(r.shortfallAnyWeek.cells).toBe(cutoffs);
  for (const b of r.shortfallAnyWeek.bins) expect(b.predicted >= 0 && b.predicted <= 1 && b.observed >= 0 && b.observed <= 1).toBe(true);
  expect(r.cushion.level).toBe(0.9);
  expect(r.cushion.cutoffs).toBe(cutoffs);
  expect(r.cushion.held! >= 0 && r.cushion.held! <= 1).toBe(true);
  expect(r.cushion.whenStated.cutoffs).toBeLessThanOrEqual(cutoffs);
}

/** The issue-17 band figures of a backtest, for the log. */
const bandSummary = (name: string, r: BacktestResult) => {
  const c = r.methods.cashline;
  const best = Math.min(r.methods.due_date.receipts.pinball, r.methods.median_delay.receipts.pinball, r.methods.naive_run_rate.receipts.pinball);
  return (
    `${name}: coverage80 receipts ${c.receipts.coverage80} payments ${c.payments.coverage80} closing ${c.closing.coverage80}; receipts pinball ${c.receipts.pinball} (best baseline ${best}); ` +
    `closing coverage by week ${c.byHorizon.closing.map((h) => h.coverage80).join(' ')}; shortfall Brier ${r.shortfall.brier} (climatology ${r.shortfall.brierClimatology})`
  );
};

/**
 * backtestLedger is pure: the same raw ledger gives the same result. Each
 * backend's describe loads its own raw ledger; one equal to a ledger already
 * replayed here (the same bytes: both backends read the same books alike) is
 * not replayed again, so the second backend is checked on the figures of the
 * ledger it loaded without computing them twice.
 */
const replayed = new Map<string, BacktestResult>();
/** The figures docs/forecast.md#measured-accuracy and the README quote, as replayed here (the same on both stores). */
const quoted: { synthetic?: BacktestResult; demo?: BacktestResult; retail?: BacktestResult } = {};
/** Each backend's raw ledger of the same books (the synthetic seed 4, the demo), for the check that they are the same. */
const raws = { synthetic: new Map<string, RawLedger>(), demo: new Map<string, RawLedger>() };
function backtestOnce(raw: RawLedger, opts: BacktestOptions & { today: string }): BacktestResult {
  const key = createHash('sha256').update(JSON.stringify([raw, opts])).digest('hex');
  let r = replayed.get(key);
  if (!r) replayed.set(key, (r = backtestLedger(raw, opts)));
  return r;
}

/** Within a describe: a fresh store of `kind` with the books `load` inserts, their raw ledger read once (the store closed after). */
function storedRawLedger(kind: StoreKind, load: (db: Db) => Promise<{ orgId: string }>): () => RawLedger {
  let store: TestStore | undefined;
  let raw: RawLedger | undefined;
  beforeAll(async () => {
    store = await freshStore(kind);
    const { orgId } = await load(store.db);
    raw = await loadRawLedger(store.db, (await orgMeta(store.db, orgId))!);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });
  return () => raw!;
}

const summary = (name: string, r: BacktestResult) =>
  `${name}: ${r.cutoffs} cut-offs; receipts WAPE cashline ${r.methods.cashline.receipts.wape} / due_date ${r.methods.due_date.receipts.wape} / median_delay ${r.methods.median_delay.receipts.wape}` +
  `; payments ${r.methods.cashline.payments.wape} / ${r.methods.due_date.payments.wape} / ${r.methods.median_delay.payments.wape}` +
  `; closing ${r.methods.cashline.closing.wape} / ${r.methods.due_date.closing.wape} / ${r.methods.median_delay.closing.wape}` +
  `; receipts MAE ${r.methods.cashline.receipts.mae} / ${r.methods.due_date.receipts.mae} / ${r.methods.median_delay.receipts.mae}`;

describe.each(BACKENDS)('backtest on a synthetic ledger with known payment habits (%s)', (kind) => {
  let store: TestStore;
  let orgId: string;
  let ledger: SyntheticLedger;
  let raw: RawLedger;
  beforeAll(async () => {
    store = await freshStore(kind);
    // A fixed id: the bands' simulation is seeded by the organisation, so both backends replay the same futures.
    ({ orgId, ledger } = await loadSynthetic(store.db, 4));
    raw = await loadRawLedger(store.db, (await orgMeta(store.db, orgId))!);
    raws.synthetic.set(kind, raw);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  // End to end (runBacktest: the store's read, then the replay) on the first store only: the other's raw ledger is the same
  // to the byte (the last describe checks it) and the replay is pure, so a second run would compute the same figures
  // again; runBacktest runs end to end on PostgreSQL with the Online Retail books below.
  it.runIf(kind === BACKENDS[0])('the goal: cashline receipts WAPE at least 30% below paid-on-due-date and below due-date-plus-median-delay; closing cash better too', async () => {
    const progress: string[] = [];
    const r = await runBacktest(store.db, orgId, { from: '2024-07-01', to: '2026-03-15', everyDays: 28, now: SYNTH_NOW, onProgress: (e) => progress.push(e.cutoff) });
    checkShape(r, 23);
    expect(progress).toHaveLength(23);
    quoted.synthetic = r;
    console.log(summary(`synthetic seed 4 (${kind})`, r));
    const m = r.methods;
    expect(m.cashline.receipts.wape).toBeLessThanOrEqual(0.7 * m.due_date.receipts.wape);
    expect(m.cashline.receipts.wape).toBeLessThan(m.median_delay.receipts.wape);
    expect(m.cashline.closing.wape).toBeLessThan(m.median_delay.closing.wape);
    expect(m.cashline.payments.wape).toBeLessThan(m.due_date.payments.wape);
  });

  it('the engine learns each customer\'s habit: median delays by habit near the generated ones (prompt 0, late 12, very late 45 days)', () => {
    const p = prepareForecast(inputAt(indexLedger(raw), '2026-03-01'));
    const byHabit = new Map<string, number[]>();
    for (const [c, h] of ledger.habits) {
      const d = p.customerDelays.get(c);
      if (!d || d.length < 5) continue;
      const list = byHabit.get(h.habit) ?? [];
      list.push(median(d));
      byHabit.set(h.habit, list);
    }
    expect(Math.abs(median(byHabit.get('prompt')!))).toBeLessThanOrEqual(1);
    expect(Math.abs(median(byHabit.get('late')!) - 12)).toBeLessThanOrEqual(3);
    expect(Math.abs(median(byHabit.get('very_late')!) - 45)).toBeLessThanOrEqual(6);
  });

  it('only what was known at the cut-off: the forecast is the same when everything dated on or after it is deleted', () => {
    const cutoff = '2025-09-15';
    const C = toDay(cutoff);
    const ix = indexLedger(raw);
    const known = inputAt(ix, cutoff);
    for (const it of known.items) {
      expect(toDay(it.issueDate ?? it.dueDate!)).toBeLessThan(C);
      if (it.paidDate) expect(toDay(it.paidDate)).toBeLessThan(C);
    }
    const later = (d: string | null) => d !== null && toDay(d) >= C;
    let laterMoves = dec(0);
    for (const p of raw.payments) if (later(p.date)) laterMoves = laterMoves.plus(p.amount);
    for (const t of raw.bankTxns) if (later(t.date)) laterMoves = laterMoves.plus(t.amount);
    const truncated: RawLedger = {
      ...raw,
      items: raw.items.filter((i) => !later(i.issueDate ?? i.dueDate)).map((i) => ({ ...i, status: 'AUTHORISED', paidDate: null, amountDue: i.total })),
      payments: raw.payments.filter((p) => !later(p.date)),
      bankTxns: raw.bankTxns.filter((t) => !later(t.date)),
      purchaseOrders: raw.purchaseOrders.filter((p) => !later(p.issueDate)).map((p) => ({ ...p, status: 'AUTHORISED' })),
      bankAccounts: raw.bankAccounts.map((b) => ({ ...b, book: dec(b.book).minus(laterMoves).toString() })),
    };
    const scenario = { id: 'b', name: 'b', kind: 'BASE' as const, adjustments: {} };
    const a = projectForecast(prepareForecast(known), scenario, SYNTH_NOW);
    const b = projectForecast(prepareForecast(inputAt(indexLedger(truncated), cutoff)), scenario, SYNTH_NOW);
    expect(b).toEqual(a);
    // Opening cash at the cut-off: every movement before it.
    const before = [...raw.payments, ...raw.bankTxns].filter((m) => toDay(m.date) < C).reduce((x, m) => x.plus(m.amount), dec(0));
    expect(dec(a.startingCash).eq(before.plus(80_000))).toBe(true); // the synthetic opening balance is 80,000
  });

  it('issue 17 goals, weekly cut-offs over 21 months: coverage80 0.75-0.85 per figure and 0.70-0.90 per week; receipts pinball at most 0.85 of the best baseline; open receivables WAPE at most 0.6 of due_date and 0.8 of median_delay; the shortfall probability beats the base rate', () => {
    const r = backtestOnce(raw, { from: '2024-07-01', to: '2026-03-30', everyDays: 7, today: SYNTH_AS_OF, diagnostics: true });
    console.log(bandSummary(`synthetic seed 4 weekly (${kind})`, r));
    const c = r.methods.cashline;
    for (const figure of ['receipts', 'payments', 'closing'] as const) {
      expect(c[figure].coverage80, figure).toBeGreaterThanOrEqual(0.75);
      expect(c[figure].coverage80, figure).toBeLessThanOrEqual(0.85);
      for (const h of c.byHorizon[figure]) {
        expect(h.coverage80, `${figure} week ${h.week}`).toBeGreaterThanOrEqual(0.7);
        expect(h.coverage80, `${figure} week ${h.week}`).toBeLessThanOrEqual(0.9);
      }
    }
    const m = r.methods;
    expect(c.receipts.pinball).toBeLessThanOrEqual(0.85 * Math.min(m.due_date.receipts.pinball, m.median_delay.receipts.pinball, m.naive_run_rate.receipts.pinball));
    const open = r.diagnostics!.openReceivables;
    expect(open.cashline.wape).toBeLessThanOrEqual(0.6 * open.due_date.wape);
    expect(open.cashline.wape).toBeLessThanOrEqual(0.8 * open.median_delay.wape);
    expect(r.shortfall.brier).toBeLessThan(r.shortfall.brierClimatology);
  });

  it('cut-offs whose 13 weeks run past the data are skipped; the diagnostics split (open receivables alone) is opt-in', () => {
    const r = backtestOnce(raw, { from: '2026-01-05', to: '2026-06-29', everyDays: 7, today: SYNTH_AS_OF, diagnostics: true });
    // the last cut-off whose 13 weeks end by 30 June 2026: Monday 30 March (weeks to 28 June)
    expect(r.cutoffs).toBe(13);
    expect(r.diagnostics!.openReceivables.cashline.wape).toBeLessThan(r.diagnostics!.openReceivables.due_date.wape);
    expect(() => backtestLedger(raw, { from: '2026-01-05', to: '2025-01-01', everyDays: 7, today: SYNTH_AS_OF })).toThrow('to is before from');
    expect(() => backtestLedger(raw, { from: '2026-01-05', to: '2026-02-01', everyDays: 0, today: SYNTH_AS_OF })).toThrow('everyDays');
  });
});

// Synthetic seed 5: cash falls rarely (about 5% of cells), the hard case for the shortfall probability. On PostgreSQL only
// (the figures are the same on both engines, as the seed 4 tests show).
describe('backtest on a synthetic ledger whose cash rarely falls (seed 5, postgres)', () => {
  const raw = storedRawLedger('postgres', (db) => loadSynthetic(db, 5));

  it('weekly cut-offs over 21 months: the shortfall probability beats the base rate; coverage80 0.75-0.85 per figure', () => {
    const r = backtestLedger(raw(), { from: '2024-07-01', to: '2026-03-30', everyDays: 7, today: SYNTH_AS_OF });
    console.log(bandSummary('synthetic seed 5 weekly (postgres)', r));
    expect(r.shortfall.brier).toBeLessThan(r.shortfall.brierClimatology);
    for (const figure of ['receipts', 'payments', 'closing'] as const) {
      expect(r.methods.cashline[figure].coverage80, figure).toBeGreaterThanOrEqual(0.75);
      expect(r.methods.cashline[figure].coverage80, figure).toBeLessThanOrEqual(0.85);
    }
  });
});

// A shop paid by card payouts (src/backtest/shop.ts): most of its money a bank flow of every business day, shut over
// Christmas, with a season of its own; unlike the demo and the other synthetic books. On the embedded store.
describe('backtest on a shop whose takings arrive as card payouts (pglite)', () => {
  const raw = storedRawLedger('pglite', (db) => loadShop(db, 1));

  it("weekly cut-offs over 21 months: receipts beat every baseline (pinball; 1.39x the naive run-rate's when the payouts were taken for events of a renewal model and stopped by the Christmas closure), coverage80 0.75-0.85, the shortfall probability better than the base rate", () => {
    const r = backtestLedger(raw(), { from: '2024-07-01', to: '2026-03-30', everyDays: 7, today: SYNTH_AS_OF });
    console.log(bandSummary('synthetic shop weekly (pglite)', r));
    const c = r.methods.cashline;
    for (const m of ['due_date', 'median_delay', 'naive_run_rate'] as const) expect(c.receipts.pinball, m).toBeLessThan(r.methods[m].receipts.pinball);
    for (const figure of ['receipts', 'payments', 'closing'] as const) {
      expect(c[figure].coverage80, figure).toBeGreaterThanOrEqual(0.75);
      expect(c[figure].coverage80, figure).toBeLessThanOrEqual(0.85);
    }
    expect(r.shortfall.brier).toBeLessThan(r.shortfall.brierClimatology);
  });
});

// The Online Retail set is large (541,909 rows): imported once, on PostgreSQL (the figures are the same on both engines).
describe('backtest on the Online Retail data, never tuned on (postgres)', () => {
  let store: TestStore;
  let orgId: string;
  const now = RETAIL_NOW;
  beforeAll(async () => {
    store = await freshStore('postgres');
    orgId = await importOnlineRetail(store.db);
  }, 300_000);
  afterAll(async () => {
    await store?.close();
  });

  it('reports every method; the goal: receipts WAPE at least 30% below due_date and below median_delay', async () => {
    const r = await runBacktest(store.db, orgId, { from: '2011-03-07', to: '2011-09-05', everyDays: 14, now });
    checkShape(r, 14);
    quoted.retail = r;
    console.log(summary('online retail (postgres)', r));
    console.log(bandSummary('online retail (postgres)', r));
    // A young business (docs/forecast.md#level): its bands are not the too-narrow ones of item-by-item draws (0.58 and 0.54
    // before the common level reached businesses under a year old). Its closing band is somewhat too wide (0.86).
    expect(r.methods.cashline.receipts.coverage80).toBeGreaterThanOrEqual(0.75);
    expect(r.methods.cashline.closing.coverage80).toBeGreaterThanOrEqual(0.75);
    expect(r.methods.cashline.receipts.wape).toBeLessThanOrEqual(0.7 * r.methods.due_date.receipts.wape);
    expect(r.methods.cashline.receipts.wape).toBeLessThan(r.methods.median_delay.receipts.wape);
  }, 180_000);
});

// Last in the file: the demo's copy is set up once per run, by the first file that asks (helpers/fixtures.ts); asked for
// late here, it is more often ready by then.
describe.each(BACKENDS)('backtest on the demo business, never tuned on (%s)', (kind) => {
  let store: TestStore;
  let raw: RawLedger;
  const now = new Date('2026-11-23T09:00:00Z');
  // The demo's main organisation, Harbour & Vine Supplies: the books `npm start` imports (generateDemo's defaults), from
  // the run's copy of the demo (helpers/fixtures.ts) rather than generated and imported again here.
  const orgId = DEMO_ORGS[0].id;
  beforeAll(async () => {
    ({ store } = await storeWith(kind, demoFixture(now)));
    raw = await loadRawLedger(store.db, (await orgMeta(store.db, orgId))!);
    raws.demo.set(kind, raw);
  }, 300_000);
  afterAll(async () => {
    await store?.close();
  });

  it('reports every method; the goal: receipts WAPE at least 30% below due_date and below median_delay', () => {
    // The raw ledger as runBacktest loads it (the synthetic tests run it end to end); replayed once for both stores.
    const r = backtestOnce(raw, { from: '2024-06-03', to: '2026-08-17', everyDays: 28, today: '2026-11-23' });
    checkShape(r, 29);
    quoted.demo ??= r;
    console.log(summary(`demo (${kind})`, r));
    console.log(bandSummary(`demo (${kind})`, r));
    // The issue's goal, on data the engine was not tuned on.
    expect(r.methods.cashline.receipts.wape).toBeLessThanOrEqual(0.7 * r.methods.due_date.receipts.wape);
    expect(r.methods.cashline.receipts.wape).toBeLessThan(r.methods.median_delay.receipts.wape);
  }, 120_000);
});

// Read from either store, the same books are the same raw ledger, to the byte (loadRawLedger reads in bytewise id order
// whatever the server's collation): so the replays above, done once for both, stand for both.
describe('the raw ledger is the same on both stores', () => {
  it.each(['synthetic', 'demo'] as const)('%s', (books) => {
    const [a, b] = BACKENDS.map((kind) => raws[books].get(kind));
    expect(a, `${books} on ${BACKENDS[0]}`).toBeDefined();
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });
});

// The accuracy docs/forecast.md and the README quote are these replays' figures (UPDATE_DOCS=1 rewrites them).
describe('the backtest figures the documents quote', () => {
  const three = (r: BacktestResult, figure: 'receipts' | 'payments' | 'closing') =>
    `${r.methods.cashline[figure].wape} / ${r.methods.due_date[figure].wape} / ${r.methods.median_delay[figure].wape}`;
  const mae = (r: BacktestResult) =>
    [r.methods.cashline, r.methods.due_date, r.methods.median_delay].map((m) => Number(m.receipts.mae).toLocaleString('en-US', { maximumFractionDigits: 2 }));
  const round3 = (x: number) => x.toFixed(3);

  it('docs/forecast.md#measured-accuracy and the README row are the replays above', () => {
    const { synthetic, demo, retail } = quoted;
    expect(synthetic && demo && retail, 'the replays above ran').toBeTruthy();
    const rows = [
      ['Synthetic seed 4 (known habits, 28-day steps 2024-07-01..2026-03-15)', synthetic!],
      ['Demo business (3 years, 28-day steps 2024-06-03..2026-08-17)', demo!],
      ['Online Retail (UCI, 14-day steps 2011-03-07..2011-09-05)', retail!],
    ] as const;
    const start = '<!-- backtest-accuracy:start (generated by test/backtest.test.ts) -->';
    const end = '<!-- backtest-accuracy:end -->';
    const table = [
      start,
      '| data (never tuned on) | cut-offs | cashline | due_date | median_delay | cashline vs due_date |',
      '|---|---|---|---|---|---|',
      ...rows.map(([name, r]) => {
        const m = r.methods;
        const lower = Math.round((1 - m.cashline.receipts.wape / m.due_date.receipts.wape) * 100);
        return `| ${name} | ${r.cutoffs} | ${m.cashline.receipts.wape} | ${m.due_date.receipts.wape} | ${m.median_delay.receipts.wape} | ${lower}% lower |`;
      }),
      '',
      `Payments WAPE (cashline / due_date / median_delay): synthetic ${three(synthetic!, 'payments')}; demo ${three(demo!, 'payments')} (Online Retail has no bills). ` +
        `Closing-cash WAPE: synthetic ${three(synthetic!, 'closing')}; demo ${three(demo!, 'closing')}; Online Retail ${three(retail!, 'closing')}. ` +
        `Receipts MAE per week: synthetic ${mae(synthetic!).join(' / ')}; demo ${mae(demo!).join(' / ')}; Online Retail ${mae(retail!).join(' / ')}.`,
      end,
    ].join('\n');
    expectGenerated(resolve(ROOT, 'docs', 'forecast.md'), start, end, table, 'npx vitest run test/backtest.test.ts');
    const cells = rows.map(([name, r]) => {
      const m = r.methods;
      const label = name.startsWith('Synthetic') ? 'synthetic seed 4:' : name.startsWith('Demo') ? 'demo' : 'Online Retail';
      return `${label} ${round3(m.cashline.receipts.wape)} / ${round3(m.due_date.receipts.wape)} / ${round3(m.median_delay.receipts.wape)} (${r.cutoffs} cut-offs)`;
    });
    const rowStart = '| forecast backtest, receipts WAPE (cashline / paid on due date / due date + median delay) |';
    const rowEnd = '| `cashline-server backtest`, `test/backtest.test.ts` |';
    const wapeOf = (figure: 'payments' | 'closing') =>
      rows
        .filter(([name]) => figure === 'closing' || !name.startsWith('Online'))
        .map(([name, r]) => `${name.startsWith('Synthetic') ? 'synthetic' : name.startsWith('Demo') ? 'demo' : 'Online Retail'} ${round3(r.methods.cashline[figure].wape)}`)
        .join(', ');
    const more = `Cashline's payments WAPE: ${wapeOf('payments')}; closing cash: ${wapeOf('closing')}.`;
    expectGenerated(resolve(ROOT, 'README.md'), rowStart, rowEnd, `${rowStart} ${cells.join('; ')}. ${more} ${rowEnd}`, 'npx vitest run test/backtest.test.ts');
  });
});
