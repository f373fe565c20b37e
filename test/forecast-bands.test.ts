/**
 * The forecast's bands and shortfall probability (issue 17;
 * docs/forecast.md#bands and #calibration), pure: the simulation agrees with
 * the point forecast it is drawn from, the bands are ordered and stated in
 * cents, the shortfall probability means what it says, and the calibration
 * brings a band that is too narrow or too wide to its stated coverage.
 */
import { describe, expect, it } from 'vitest';
import { D, dec, isCanonical } from '../src/domain/money.js';
import { addDays } from '../src/domain/calendar.js';
import { prepareForecast, runForecast } from '../src/domain/forecast/engine.js';
import { projectForecast } from '../src/domain/forecast/project.js';
import { levelSpreads, poissonSampler, rng, simulateForecast, withLevel, type Simulation } from '../src/domain/forecast/simulate.js';
import { calibrationSummary, centsText, forecastBands, lowestBand, simulatedBands } from '../src/domain/forecast/bands.js';
import fc from 'fast-check';
import { calibratedBand, calibratedCdf, conformalCdf, conformalQuantile, GAMMA, OnlineCalibrator, normalQuantile, scoreOf, TARGET_ALPHA, valueAt, type CalibrationState } from '../src/domain/forecast/calibrate.js';
import { levelSpread, youngLevelSpread } from '../src/domain/forecast/seasonality.js';
import { fiveQuantiles } from '../src/domain/forecast/behaviour.js';
import { calibrationEvery } from '../src/backtest/calibrate.js';
import { toDay } from '../src/domain/forecast/days.js';
import type { Scenario } from '../src/domain/forecast/types.js';
import { redactNotes } from '../src/domain/sensitive.js';
import { arbitraryBooks, AS_OF, doc, input, paidHistory } from './helpers/forecast-input.js';

const BASE: Scenario = { id: 'base', name: 'Base case', kind: 'BASE', adjustments: {} };
const NOW = new Date('2026-11-25T08:00:00Z');

/** A business with customers of known habits, open invoices, open bills and a monthly rent. */
function business(cash = '10000') {
  const items = [
    ...paidHistory('prompt', 12, 0),
    ...paidHistory('late', 12, 20),
    ...Array.from({ length: 6 }, (_, i) => doc({ contactId: i % 2 ? 'prompt' : 'late', issueDate: addDays(AS_OF, -5 * i - 3), total: String(1000 + 250 * i) })),
    doc({ kind: 'AP', contactId: 'supplier', issueDate: addDays(AS_OF, -10), total: '4000' }),
  ];
  return input({ items, bankAccounts: [{ id: 'bank-1', name: 'Cheque', currency: 'AUD', reconciledBalance: cash, statementBalance: null, unreconciledNet: '0' }] });
}

/** Ten futures: future s goes 10 x s below zero, the odd ones in week 3, the even ones in week 8; 1,000 otherwise. */
function shortInDifferentWeeks(): Simulation {
  const n = 10;
  const closing = new Float64Array(13 * n).fill(1000);
  for (let s = 0; s < n; s++) closing[(s % 2 ? 2 : 7) * n + s] = -10 * s;
  const zeros = () => new Float64Array(13 * n);
  return { n, opening: 1000, inflow: zeros(), outflow: zeros(), closing, receivables: zeros(), sales: zeros(), spend: zeros(), variance: [] };
}

describe('the simulation', () => {
  it('draws the same money the point forecast expects: each week\'s mean inflow is the point inflow (open invoices, by their customers\' delays)', () => {
    const p = prepareForecast(business());
    const point = projectForecast(p, BASE, NOW);
    const sim = simulateForecast(p, BASE, 4000);
    const totalIn = point.weeks.reduce((a, w) => a + Number(w.inflow), 0);
    point.weeks.forEach((w, k) => {
      let mean = 0;
      for (let s = 0; s < sim.n; s++) mean += sim.inflow[k * sim.n + s]!;
      mean /= sim.n;
      // Within 3% of the horizon's inflow: sampling noise of 4,000 futures, nothing systematic.
      expect(Math.abs(mean - Number(w.inflow)), `week ${k + 1}`).toBeLessThan(0.03 * totalIn);
    });
  });

  it('each future\'s closing cash is its opening plus its inflows less its outflows, week after week', () => {
    const sim = simulateForecast(prepareForecast(business()), BASE);
    for (let s = 0; s < sim.n; s += 37) {
      let c = sim.opening;
      for (let k = 0; k < 13; k++) {
        c += sim.inflow[k * sim.n + s]! - sim.outflow[k * sim.n + s]!;
        expect(sim.closing[k * sim.n + s]).toBeCloseTo(c, 6);
      }
    }
  });

  it('is reproducible: the same organisation, day and scenario draw the same futures; another scenario draws others', () => {
    const p = prepareForecast(business());
    expect(simulateForecast(p, BASE).closing).toEqual(simulateForecast(p, BASE).closing);
    expect(simulateForecast(p, { ...BASE, id: 'other' }).closing).not.toEqual(simulateForecast(p, BASE).closing);
  });

  it('Poisson counts have the mean and variance they should (inversion below 30, the normal approximation above)', () => {
    const u = rng(7);
    for (const mean of [0.2, 3, 45]) {
      const draw = poissonSampler(mean);
      const xs = Array.from({ length: 20_000 }, () => draw(u));
      const m = xs.reduce((a, x) => a + x, 0) / xs.length;
      const v = xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length;
      expect(Math.abs(m - mean) / mean, `mean ${mean}`).toBeLessThan(0.05);
      expect(Math.abs(v - mean) / mean, `variance ${mean}`).toBeLessThan(0.08);
    }
  });

  it("a business's level spread is the spread of its quarter-on-quarter change: 0 for steady sales, more for erratic ones", () => {
    // Month indexes (year x 12 + month) of January 2024 to December 2025; today is in January 2026.
    const jan2024 = 2024 * 12;
    const steady = new Map(Array.from({ length: 24 }, (_, m) => [jan2024 + m, 1000]));
    const erratic = new Map(Array.from({ length: 24 }, (_, m) => [jan2024 + m, m % 3 === 0 ? 3000 : 500 + 100 * (m % 5)]));
    const asOf = toDay('2026-01-15');
    expect(levelSpread(steady, asOf)).toBe(0);
    expect(levelSpread(erratic, asOf)).toBeGreaterThan(0.05);
    expect(levelSpread(new Map([[jan2024, 100]]), asOf)).toBe(0);
  });
});

/** A business whose first sale was `weeks` weeks ago: a few customers buying every week, in amounts that swing from month to month. */
function youngBusiness(weeks: number) {
  const items = [];
  for (let w = 1; w <= weeks; w++) {
    const swing = [1, 1.6, 0.7, 1.3, 0.8][Math.floor(w / 4) % 5]!;
    for (const c of ['a', 'b', 'c', 'd']) {
      const issue = addDays(AS_OF, -7 * w);
      items.push(doc({ contactId: c, issueDate: issue, dueDate: addDays(issue, 7), status: 'PAID', paidDate: addDays(issue, 7), total: (400 * swing).toFixed(2) }));
    }
  }
  return input({ items });
}

describe('the common level, and a young business (docs/forecast.md#level)', () => {
  it("its level spread is the spread of its four-week totals' change: 0 when steady or under twelve weeks, more when they swing", () => {
    const asOf = toDay(AS_OF);
    const weekly = (weeks: number, amount: (w: number) => number) => [{ days: Array.from({ length: weeks }, (_, i) => asOf - 7 * (weeks - i)), totals: Array.from({ length: weeks }, (_, i) => String(amount(i))) }];
    expect(youngLevelSpread(weekly(30, () => 1000), asOf - 7 * 30, asOf)).toBe(0);
    expect(youngLevelSpread(weekly(30, (i) => (Math.floor(i / 4) % 2 ? 1500 : 700)), asOf - 7 * 30, asOf)).toBeGreaterThan(0.2);
    expect(youngLevelSpread(weekly(11, (i) => (i % 2 ? 1500 : 700)), asOf - 7 * 11, asOf)).toBe(0);
  });

  it('under a year old, its level spread is the young one (no quarter-on-quarter one yet); a year on, the quarter-on-quarter one', () => {
    const young = prepareForecast(youngBusiness(26));
    expect(young.levelSpread.sales).toBe(0);
    expect(young.youngSpread.sales).toBeGreaterThan(0.1);
    expect(levelSpreads(young).sales).toBe(young.youngSpread.sales);
    const grown = prepareForecast(youngBusiness(80));
    expect(grown.levelSpread.sales).toBeGreaterThan(0);
    expect(grown.youngSpread).toEqual({ sales: 0, spend: 0 });
    expect(levelSpreads(grown).sales).toBe(grown.levelSpread.sales);
    // Open invoices alone: nothing predicted, no level to draw.
    const open = prepareForecast(input({ items: [doc({ contactId: 'x', issueDate: addDays(AS_OF, -3), total: '900' })] }));
    expect(withLevel(open, BASE, simulateForecast(open, BASE))).toBeNull();
  });

  it("the level's futures are the same futures, each one's predicted sales scaled by a level of its own that wanders from today's: a random walk whose spread after four weeks is the young business's (session 27; before, one level for all 13 weeks)", () => {
    const p = prepareForecast(youngBusiness(26));
    const sim = simulateForecast(p, BASE);
    const level = withLevel(p, BASE, sim)!;
    expect(p.youngSpread.sales).toBeGreaterThan(0.05);
    // Week by week, each future's log level (read where it has predicted sales; elsewhere nothing changes).
    const logs = Array.from({ length: 13 }, () => [] as number[]);
    for (let s = 0; s < sim.n; s++) {
      for (let k = 0; k < 13; k++) {
        const i = k * sim.n + s;
        if (sim.sales[i]! > 1) logs[k]!.push(Math.log(1 + (level.inflow[i]! - sim.inflow[i]!) / sim.sales[i]!));
        else expect(level.inflow[i]).toBeCloseTo(sim.inflow[i]!, 6);
      }
    }
    const sd = (xs: number[]) => {
      const m = xs.reduce((a, x) => a + x, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
    };
    // (Its first week's sales are still to be paid: from week 2 on, nearly every future has some.)
    for (const k of [1, 3, 7, 12]) {
      expect(logs[k]!.length).toBeGreaterThan(0.9 * sim.n);
      expect(sd(logs[k]!) / (p.youngSpread.sales * Math.sqrt((k + 1) / 4)), `week ${k + 1}`).toBeCloseTo(1, 1);
    }
  });

  it("its bands, while not calibrated, are the level's futures' (wider than the item-by-item simulation's), marked uncalibrated", () => {
    const p = prepareForecast(youngBusiness(26));
    const [payload] = runForecast(youngBusiness(26), [BASE], NOW).payloads;
    const sim = simulateForecast(p, BASE);
    const plain = simulatedBands(sim);
    const young = simulatedBands(withLevel(p, BASE, sim)!);
    const last = payload!.weeks[12]!;
    expect(last.bands!.calibrated).toBe(false);
    expect(Number(last.bands!.inflow.p90) - Number(last.bands!.inflow.p10)).toBeCloseTo(young[12]!.inflow.p90 - young[12]!.inflow.p10, 1);
    expect(Number(last.bands!.closing.p90) - Number(last.bands!.closing.p10)).toBeCloseTo(young[12]!.closing.p90 - young[12]!.closing.p10, 1);
    // A level moves every week's sales the same way: the closing cash's band, their sum, widens most.
    expect(young[12]!.inflow.p90 - young[12]!.inflow.p10).toBeGreaterThan(plain[12]!.inflow.p90 - plain[12]!.inflow.p10);
    expect(young[12]!.closing.p90 - young[12]!.closing.p10).toBeGreaterThan(1.5 * (plain[12]!.closing.p90 - plain[12]!.closing.p10));
  });

  it("the young band is the calibration's prior: with few scores the band leans to it, with many to what the scores say", () => {
    const sim = { p10: 90, p50: 100, p90: 110 };
    const prior = { p10: 60, p50: 100, p90: 140 };
    // Scores that say the simulated band was right: its own quantiles.
    const right = (n: number) => Array.from({ length: n }, (_, i) => normalQuantile((i + 0.5) / n) / 1.2815515655446004);
    const few = { scores: right(8), alpha: 0.2 };
    const many = { scores: right(52), alpha: 0.2 };
    const width = (q: { p10: number; p90: number }) => q.p90 - q.p10;
    expect(width(calibratedBand(sim, few, prior))).toBeGreaterThan(width(calibratedBand(sim, few)) * 1.3);
    expect(width(calibratedBand(sim, many, prior))).toBeLessThan(width(calibratedBand(sim, few, prior)));
    expect(width(calibratedBand(sim, many, prior))).toBeGreaterThan(width(calibratedBand(sim, many)));
  });
});

describe('bands and the shortfall', () => {
  it('every week has P10 <= P50 <= P90 of inflow, outflow and closing, in canonical cents; inflows and outflows are never negative', () => {
    const [payload] = runForecast(business(), [BASE], NOW).payloads;
    for (const w of payload!.weeks) {
      for (const b of [w.bands!.inflow, w.bands!.outflow, w.bands!.closing]) {
        for (const v of [b.p10, b.p50, b.p90]) {
          expect(isCanonical(v)).toBe(true);
          expect(dec(v).decimalPlaces()).toBeLessThanOrEqual(2);
        }
        expect(dec(b.p10).lte(b.p50) && dec(b.p50).lte(b.p90)).toBe(true);
      }
      expect(dec(w.bands!.inflow.p10).gte(0) && dec(w.bands!.outflow.p10).gte(0)).toBe(true);
      expect(w.bands!.calibrated).toBe(false);
    }
    expect(payload!.calibration).toBeNull();
  });

  it('a rich business has no shortfall; one already below zero with nothing coming has one for certain, starting in week 1', () => {
    const rich = runForecast(business('10000000'), [BASE], NOW).payloads[0]!;
    expect(rich.shortfall).toEqual({ threshold: '0', probability: 0, firstLikelyWeekIndex: null, cushion90: '0' });
    expect(rich.weeks.every((w) => w.shortfallProbability === 0)).toBe(true);
    const broke = runForecast(input({ bankAccounts: [{ id: 'b', name: 'b', currency: 'AUD', reconciledBalance: '-500', statementBalance: null, unreconciledNet: '0' }] }), [BASE], NOW)
      .payloads[0]!;
    expect(broke.shortfall).toEqual({ threshold: '0', probability: 1, firstLikelyWeekIndex: 0, cushion90: '500' });
  });

  it("the shortfall probability is the share of futures that go below the threshold: a buffer raises it; it is at least any week's own", () => {
    const tight = business('3000');
    const at0 = runForecast(tight, [BASE], NOW).payloads[0]!;
    const atBuffer = runForecast(tight, [BASE], NOW, { calibration: null, threshold: '5000' }).payloads[0]!;
    expect(atBuffer.shortfall!.threshold).toBe('5000');
    expect(atBuffer.shortfall!.probability).toBeGreaterThan(at0.shortfall!.probability);
    for (const p of [at0, atBuffer]) {
      const worstWeek = Math.max(...p.weeks.map((w) => w.shortfallProbability!));
      expect(p.shortfall!.probability).toBeGreaterThanOrEqual(worstWeek - 1e-9);
    }
    // Counted directly from the futures: closing below 5,000 in some week.
    const sim = simulateForecast(prepareForecast(tight), BASE);
    let short = 0;
    for (let s = 0; s < sim.n; s++) if (Array.from({ length: 13 }, (_, k) => sim.closing[k * sim.n + s]!).some((c) => c < 5000)) short++;
    expect(atBuffer.shortfall!.probability).toBeCloseTo(short / sim.n, 4);
    // The cushion: what 9 futures in 10 need to stay at or above 5,000 in every week (the 90th percentile of each one's largest
    // shortfall), at least what the lowest week's P10 alone asks for.
    const gaps = Array.from({ length: sim.n }, (_, s) => Math.max(0, 5000 - Math.min(...Array.from({ length: 13 }, (_, k) => sim.closing[k * sim.n + s]!)))).sort((a, b) => a - b);
    const weekGap = Math.max(0, ...atBuffer.weeks.map((w) => 5000 - Number(w.bands!.closing.p10)));
    // The least that covers 9 futures in 10: the 450th smallest of 500 largest shortfalls.
    expect(Number(atBuffer.shortfall!.cushion90)).toBeCloseTo(Math.max(weekGap, gaps[Math.ceil(0.9 * sim.n) - 1]!), 2);
  });

  it('Given futures that run short in different weeks, Then the cushion that keeps 9 in 10 of them above zero is more than any one week\'s P10 asks for', () => {
    const b = forecastBands(shortInDifferentWeeks(), null, 0);
    // One week at a time, 1 future in 10 is 72 short in week 3 (the P10 of -90, -70, -50, -30, -10 and five at 1,000), 62 in week 8.
    expect(b.weeks[2]!.bands.closing.p10).toBe('-72');
    expect(b.weeks[7]!.bands.closing.p10).toBe('-62');
    // Path by path, 9 futures in 10 are at most 80 short at their lowest (of 0, 10, ..., 90): lined up today, 80 keeps them at or above zero.
    expect(b.shortfall).toMatchObject({ probability: 0.9, cushion90: '80' });
    // One future in ten short (by 100, in week 3) and the rest never: 9 in 10 need nothing (week 3's P10 is 890).
    const one = shortInDifferentWeeks();
    one.closing.fill(1000);
    one.closing[2 * one.n] = -100;
    expect(forecastBands(one, null, 0).shortfall).toMatchObject({ probability: 0.1, cushion90: '0' });
  });

  it('the point forecast is unchanged by the bands: the same weeks, totals and notes with and without them', () => {
    const books = business();
    const point = projectForecast(prepareForecast(books), BASE, NOW);
    const [withBands] = runForecast(books, [BASE], NOW).payloads;
    const { bands: _b, shortfallProbability: _s, ...week0 } = withBands!.weeks[0]!;
    expect(week0).toEqual(point.weeks[0]);
    expect(withBands!.endingCash).toBe(point.endingCash);
    expect(dec(withBands!.totalInflow).eq(new D(point.totalInflow))).toBe(true);
  });
});

describe('bands of any books (property)', () => {
  it('Given a balance of less than a cent and a calibration that puts 44% of the futures a fraction of a cent below zero in week 13 (the property below found it, session 27), Then the cushion is a cent, not nothing: a cushion is rounded up to whole cents', () => {
    const none = () => ({ scores: [] as number[], alpha: 0 });
    const horizons = Array.from({ length: 13 }, () => ({ inflow: none(), outflow: none(), closing: none() }));
    horizons[9] = { inflow: none(), outflow: { scores: [-1, -1, -1.3460536457894288e-21, 0, 0, 0, 0, 7.570335001353236e-23], alpha: 0 }, closing: { scores: [-1, -1, -1, -1, -1, -1, 0, 1], alpha: 0 } };
    horizons[12]!.inflow = { scores: [-1, -1, -1, -1, 0, 0, 0, 2.5193509909578928e-43], alpha: 0 };
    const calibration: CalibrationState = { method: 'simulation+adaptive-conformal', version: 8, asOf: '2026-11-25', cutoffs: 20, coverage80: 0.8, cells: 100, horizons };
    const books = input({ asOf: '2026-11-25', bankAccounts: [{ id: 'b', name: 'B', currency: 'AUD', reconciledBalance: '0.009', statementBalance: null, unreconciledNet: '0.000001' }] });
    const { shortfall } = runForecast(books, [BASE], NOW, { calibration, threshold: '0' }).payloads[0]!;
    expect(shortfall!.probability).toBeGreaterThan(0.4);
    expect(shortfall!.cushion90).toBe('0.01');
  });

  /** A calibration state of random scores (repeated values, any count, the too-few included) and miss rates. */
  const scale = fc.record({
    scores: fc.array(fc.oneof(fc.double({ min: -6, max: 6, noNaN: true }), fc.constantFrom(-1, 0, 1)), { maxLength: 30 }).map((xs) => xs.sort((a, b) => a - b)),
    alpha: fc.double({ min: 0, max: 1, noNaN: true }),
  });
  const state = fc.option(
    fc.tuple(fc.array(fc.record({ inflow: scale, outflow: scale, closing: scale }), { minLength: 13, maxLength: 13 }), fc.option(scale, { nil: undefined })).map(
      ([horizons, lowest]): CalibrationState => ({ method: 'simulation+adaptive-conformal', version: 8, asOf: AS_OF, cutoffs: 20, coverage80: 0.8, cells: 100, horizons, ...(lowest ? { lowest } : {}) }),
    ),
  );

  it('whatever the books and the calibration: bands ordered in cents, flows never negative, and the shortfall agreeing with the closing band', () => {
    fc.assert(
      // The buffer anywhere from none to twice the opening cash, in cents.
      fc.property(arbitraryBooks(), state, fc.double({ min: 0, max: 2, noNaN: true }), ({ books, opening }, calibration, share) => {
        const threshold = Math.round(Number(opening) * share * 100) / 100;
        const [p] = runForecast(books, [BASE], NOW, { calibration, threshold: String(threshold) }).payloads;
        let worst = 0;
        for (const [k, w] of p!.weeks.entries()) {
          for (const f of ['inflow', 'outflow', 'closing'] as const) {
            const b = w.bands![f];
            for (const v of [b.p10, b.p50, b.p90]) expect(isCanonical(v) && dec(v).decimalPlaces() <= 2, `week ${k + 1} ${f} ${v}`).toBe(true);
            expect(dec(b.p10).lte(b.p50) && dec(b.p50).lte(b.p90), `week ${k + 1} ${f} ${JSON.stringify(b)}`).toBe(true);
            if (f !== 'closing') expect(dec(b.p10).gte(0), `week ${k + 1} ${f}`).toBe(true);
          }
          const ps = w.shortfallProbability!;
          expect(ps >= 0 && ps <= 1, `week ${k + 1} shortfall ${ps}`).toBe(true);
          // The week's chance of closing below the threshold and its closing band are one distribution, read two ways.
          const c = w.bands!.closing;
          if (threshold < Number(c.p10) - 0.01) expect(ps, `week ${k + 1}: threshold under P10 ${c.p10}`).toBeLessThanOrEqual(0.1 + 0.005);
          if (threshold > Number(c.p90) + 0.01) expect(ps, `week ${k + 1}: threshold over P90 ${c.p90}`).toBeGreaterThanOrEqual(0.9 - 0.005);
          if (threshold > Number(c.p50) + 0.01) expect(ps, `week ${k + 1}: threshold over P50 ${c.p50}`).toBeGreaterThanOrEqual(0.5 - 0.005);
          if (threshold < Number(c.p50) - 0.01) expect(ps, `week ${k + 1}: threshold under P50 ${c.p50}`).toBeLessThanOrEqual(0.5 + 0.005);
          worst = Math.max(worst, ps);
        }
        const s = p!.shortfall!;
        expect(s.threshold).toBe(centsText(threshold));
        expect(s.probability >= 0 && s.probability <= 1).toBe(true);
        // Short in some week is at least as likely as short in the worst week (to a future's share of rounding).
        expect(s.probability).toBeGreaterThanOrEqual(worst - 0.002);
        expect(s.firstLikelyWeekIndex === null).toBe(s.probability === 0);
        // The cushion: at least what any one week's P10 asks for; more only when over a tenth of the futures go short.
        const weekGap = Math.max(0, ...p!.weeks.map((w) => threshold - Number(w.bands!.closing.p10)));
        expect(Number(s.cushion90)).toBeGreaterThanOrEqual(Number(centsText(weekGap)));
        if (s.probability < 0.1 - 0.005) expect(s.cushion90, `probability ${s.probability}`).toBe(centsText(weekGap));
        if (s.probability > 0.1 + 0.005) expect(Number(s.cushion90), `probability ${s.probability}`).toBeGreaterThan(0);
        expect(p!.calibration === null).toBe(calibrationSummary(calibration) === null);
      }),
      { numRuns: 100 },
    );
  });
});

describe('calibration', () => {
  /** Simulated bands of a standard normal, scored against actuals from a normal `spread` times as wide (and shifted by `bias`). */
  function replay(spread: number, bias: number, n = 400) {
    const u = rng(11);
    const sim = { p10: -1.2816, p50: 0, p90: 1.2816 };
    const cal = new OnlineCalibrator(1);
    let raw = 0;
    for (let t = 0; t < n; t++) {
      const y = bias + spread * normalQuantile(Math.min(0.999999, Math.max(1e-6, u())));
      if (y >= sim.p10 && y <= sim.p90) raw++;
      cal.advance(t);
      cal.countCutoff();
      cal.observe(t + 1, 0, 'closing', sim, y);
    }
    cal.advance();
    return { raw: raw / n, state: cal.state('2026-11-25') };
  }

  it('a band twice too narrow: raw coverage about 0.52, calibrated coverage near 0.80 (measured as it would have stood at each step)', () => {
    const { raw, state } = replay(2, 0);
    expect(raw).toBeLessThan(0.6);
    expect(state.coverage80!).toBeGreaterThan(0.74);
    expect(state.coverage80!).toBeLessThan(0.86);
  });

  it('a band twice too wide, and a biased one, come back near 0.80 too', () => {
    for (const [spread, bias] of [
      [0.5, 0],
      [1, 1],
    ] as const) {
      const { raw, state } = replay(spread, bias);
      expect(Math.abs(raw - 0.8)).toBeGreaterThan(0.1);
      expect(Math.abs(state.coverage80! - 0.8), `spread ${spread} bias ${bias}`).toBeLessThan(0.06);
    }
  });

  it('a calibrated forecast marks its bands calibrated and states the method, the cut-offs and the measured coverage', () => {
    const { state } = replay(2, 0);
    const scale = state.horizons[0]!.closing;
    const calibration: CalibrationState = { ...state, horizons: Array.from({ length: 13 }, () => ({ inflow: scale, outflow: scale, closing: scale })) };
    const books = business();
    const [payload] = runForecast(books, [BASE], NOW, { calibration, threshold: '0' }).payloads;
    expect(payload!.weeks.every((w) => w.bands!.calibrated)).toBe(true);
    expect(payload!.calibration).toEqual(calibrationSummary(calibration));
    expect(payload!.calibration).toMatchObject({ method: 'simulation+adaptive-conformal', cutoffs: 400, asOf: '2026-11-25' });
    // Twice too narrow before: the calibrated closing band is wider than the simulated one.
    const raw = simulatedBands(simulateForecast(prepareForecast(books), BASE));
    const w = payload!.weeks[6]!.bands!.closing;
    expect(Number(w.p90) - Number(w.p10)).toBeGreaterThan(1.5 * (raw[6]!.closing.p90 - raw[6]!.closing.p10));
  });

  it('Given a calibration that has scored the lowest closing over the weeks, Then the shortfall over the weeks and the cushion are read from it: actual lows two band-widths above the simulated ones make both smaller', () => {
    const sim = shortInDifferentWeeks();
    const plain = forecastBands(sim, null, 0);
    expect(plain.shortfall).toMatchObject({ probability: 0.9, cushion90: '80' });
    // Weeks without scores (their bands the simulation's own); the lowest scored: every past low two band-widths above the simulated median.
    const none = { scores: [], alpha: 0.2 };
    const state: CalibrationState = { method: 'simulation+adaptive-conformal', version: 8, asOf: AS_OF, cutoffs: 20, coverage80: null, cells: 0, horizons: Array.from({ length: 13 }, () => ({ inflow: none, outflow: none, closing: none })), lowest: { scores: Array(40).fill(2), alpha: 0.2 } };
    const raised = forecastBands(sim, state, 0);
    expect(raised.weeks).toEqual(plain.weeks);
    const low = lowestBand(sim, simulatedBands(sim)[0]!.closing.floor);
    // Half the futures short in week 3, half in week 8: no week more than 0.5; over the weeks, as the scores have it.
    expect(Math.max(...plain.weeks.map((w) => w.shortfallProbability))).toBe(0.5);
    expect(raised.shortfall.probability).toBeCloseTo(Math.max(0.5, calibratedCdf(low, state.lowest!, 0)), 4);
    expect(raised.shortfall.probability).toBeLessThan(plain.shortfall.probability);
    // The cushion: what the weeks' P10 ask for (72 in week 3) at least, the calibrated low's P10 below zero if more.
    expect(Number(raised.shortfall.cushion90)).toBeCloseTo(Math.max(72, -calibratedBand(low, state.lowest!).p10), 2);
    expect(Number(raised.shortfall.cushion90)).toBeLessThan(80);
    // A scale that puts the low below where the weeks can (past lows five band-widths under: short in some week more likely than the
    // weeks' chances added up, 0.5 + 0.4): not believed; the futures' ranks say it, as without the scale.
    const sunk = forecastBands(sim, { ...state, lowest: { scores: Array(40).fill(-5), alpha: 0.2 } }, 0);
    expect(calibratedCdf(low, { scores: Array(40).fill(-5), alpha: 0.2 }, 0)).toBeGreaterThan(0.9);
    expect(sunk.shortfall).toEqual(plain.shortfall);
  });

  it('the calibrator scores the lowest closing over the weeks on a scale of its own, apart from the weeks\' coverage', () => {
    const cal = new OnlineCalibrator(1);
    const sim = { p10: -1, p50: 0, p90: 1 };
    for (let i = 0; i < 10; i++) cal.observeLowest(i + 1, sim, i % 2 ? 0.5 : -0.5);
    cal.advance(5);
    expect(cal.lowest.scores).toEqual([-0.5, -0.5, -0.5, 0.5, 0.5]);
    cal.advance();
    expect(cal.lowest.scores).toHaveLength(10);
    expect(cal.state(AS_OF)).toMatchObject({ cells: 0, coverage80: null, lowest: { scores: cal.lowest.scores } });
    expect(cal.horizons[0]!.closing.scores).toEqual([]);
  });

  it('scores are positions in band units: -1 at P10, 0 at P50, +1 at P90; valueAt is their inverse', () => {
    const q = { p10: 80, p50: 100, p90: 160 };
    expect(scoreOf(q, 80)).toBe(-1);
    expect(scoreOf(q, 100)).toBe(0);
    expect(scoreOf(q, 160)).toBe(1);
    for (const y of [-50, 90, 130, 400]) expect(valueAt(q, scoreOf(q, y))).toBeCloseTo(y, 9);
  });

  it('ACI is stepped on the band the forecast showed at its cut-off, not on the band as it stands when the outcome arrives', () => {
    // Given a calibration that has learnt wide scores (actuals 3 band-widths out), so week 1's band is wide,
    const sim = { p10: -1, p50: 0, p90: 1 };
    const cal = new OnlineCalibrator(1);
    for (let i = 0; i < 8; i++) cal.observe(i + 1, 0, 'closing', sim, i % 2 ? 3 : -3);
    cal.advance(8);
    // and a forecast made on day 9 whose outcome (2.5) lies inside the band it showed but arrives only on day 100,
    const shown = cal.band(0, 'closing', sim);
    expect(shown.p90).toBeGreaterThan(2.5);
    cal.observe(100, 0, 'closing', sim, 2.5);
    // when forty later forecasts land on their median and narrow the band before that outcome arrives,
    for (let t = 10; t < 50; t++) {
      cal.advance(t);
      cal.observe(t + 1, 0, 'closing', sim, 0);
    }
    cal.advance(60);
    const scale = cal.horizons[0]!.closing;
    expect(calibratedBand(sim, scale).p90).toBeLessThan(2.5);
    const before = scale.alpha;
    // then its arrival counts as the hit it was: alpha rises by GAMMA times the target miss rate (a miss would lower it).
    cal.advance();
    expect(scale.alpha).toBeCloseTo(before + GAMMA * TARGET_ALPHA, 12);
  });

  it('Given a first year of surprises all one way and then outcomes about the simulated P50, Then the scores are read symmetric: the band no longer leans toward the old surprises; outcomes that keep falling one way are read as they fell', () => {
    const sim = { p10: -1, p50: 0, p90: 1 };
    // One forecast a day, each known the next day: `ys` the outcomes in turn.
    const replay = (ys: number[]) => {
      const cal = new OnlineCalibrator(1);
      ys.forEach((y, t) => {
        cal.advance(t);
        cal.observe(t + 1, 0, 'closing', sim, y);
      });
      cal.advance();
      return cal.horizons[0]!.closing;
    };
    // Twelve outcomes 1.5 to 2.5 band-widths below the median (the first year's), then forty spread evenly about it (-1.4..1.4).
    const first = Array.from({ length: 12 }, (_, i) => -1.5 - (i % 5) / 4);
    const settled = replay([...first, ...Array.from({ length: 40 }, (_, i) => (((i * 7) % 40) / 39 - 0.5) * 2.8)]);
    expect(settled.symmetric).toBe(true);
    const band = calibratedBand(sim, settled);
    expect(band.p50).toBeCloseTo(0, 12);
    expect(band.p90).toBeCloseTo(-band.p10, 12);
    // Read as they fell, the same scores put the median below the simulated one (the old surprises still in the window).
    expect(calibratedBand(sim, settled, undefined, false).p50).toBeLessThan(-0.1);
    // Outcomes that keep falling above the band (1.5 to 2.5 band-widths up, as a business growing faster than its history says):
    const growing = replay(Array.from({ length: 60 }, (_, i) => 1.5 + (i % 5) / 4));
    expect(growing.symmetric).toBe(false);
    expect(calibratedBand(sim, growing).p50).toBeGreaterThan(1.5);
  });

  it('Given a horizon whose reading changed between a cut-off and its outcome, Then each reading is judged on its own band from the cut-off; a band borrowed from a shorter horizon judges nothing', () => {
    const sim = { p10: -1, p50: 0, p90: 1 };
    const cal = new OnlineCalibrator(2);
    // Twelve outcomes two band-widths and more below: read as they fell, the band sits there; read symmetric, about 0.
    for (let t = 0; t < 12; t++) cal.observe(t, 0, 'closing', sim, -2 - t / 10);
    cal.advance(100);
    const own = cal.horizons[0]!.closing;
    own.symmetric = true;
    // Eight forecasts shown with the symmetric reading, whose outcomes fall where the scores fell (-2.2 to -2.55)...
    for (let t = 0; t < 8; t++) cal.observe(200 + t, 0, 'closing', sim, -2.2 - t / 20);
    // ...and week 2's, shown with week 1's scores (it has none of its own yet), landing there too.
    for (let t = 0; t < 8; t++) cal.observe(200 + t, 1, 'closing', sim, -2.2 - t / 20);
    // The reading changes before the outcomes arrive: the losses are still each reading's own, and reading them as they fell wins.
    own.symmetric = false;
    cal.advance();
    expect(own.symmetric).toBe(false);
    expect(calibratedBand(sim, own, undefined, true).p50).toBeCloseTo(0, 12);
    // Week 2 judged nothing: its eight scores arrived with bands of week 1's, so it still reads them as they fell.
    expect(cal.horizons[1]!.closing.scores).toHaveLength(8);
    expect(cal.horizons[1]!.closing.symmetric).toBeUndefined();
  });

  it('conformal quantiles: level k / (n + 1) reads the k-th smallest score; beyond the ends at most one outer spacing further; the cdf is its inverse', () => {
    expect(conformalQuantile([1, 2, 4, 8], 0.2)).toBe(1);
    expect(conformalQuantile([1, 2, 4, 8], 0.6)).toBe(4);
    expect(conformalQuantile([1, 2, 4, 8], 0.5)).toBe(3);
    expect(conformalQuantile([1, 2, 4, 8], 0)).toBe(0);
    expect(conformalQuantile([1, 2, 4, 8], 1)).toBe(12);
    // Wider than the sample quantile with few scores: the 10% level of 9 scores is the lowest one, not between the first two.
    expect(conformalQuantile([0, 1, 2, 3, 4, 5, 6, 7, 8], 0.1)).toBe(0);
    // Equal scores: x at a run of them is read at the run's last, at the ends as in between; reading that level gives x back.
    expect(conformalCdf([1, 1, 1, 2], 1)).toBeCloseTo(3 / 5, 12);
    expect(conformalCdf([0, 1, 1, 1, 2], 1)).toBeCloseTo(4 / 6, 12);
    expect(conformalCdf([3, 3, 3, 3], 3)).toBeCloseTo(4 / 5, 12);
    expect(conformalCdf([1, 1, 2, 2], 2)).toBeCloseTo(4 / 5, 12);
    expect(conformalCdf([1, 1, 1, 2], 0.5)).toBe(0);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 2, maxLength: 40 }), (xs) => {
        const s = [...xs].sort((a, b) => a - b);
        for (const x of s) expect(conformalQuantile(s, conformalCdf(s, x))).toBeCloseTo(x, 9);
      }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -1000, max: 1000 }), { minLength: 2, maxLength: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (xs, q) => {
        const s = [...xs].sort((a, b) => a - b);
        const x = conformalQuantile(s, q);
        expect(conformalCdf(s, x)).toBeCloseTo(q, 9);
        expect(x).toBeGreaterThanOrEqual(s[0]! - (s[1]! - s[0]!) - 1e-9);
        expect(x).toBeLessThanOrEqual(s[s.length - 1]! + (s[s.length - 1]! - s[s.length - 2]!) + 1e-9);
        expect(conformalQuantile(s, Math.min(1, q + 0.01))).toBeGreaterThanOrEqual(x - 1e-9);
      }),
    );
  });

  it('no calibration is stated before any week has enough replayed outcomes', () => {
    expect(calibrationSummary(null)).toBeNull();
    expect(calibrationSummary(new OnlineCalibrator(13).state('2026-11-25'))).toBeNull();
    // The bands without one are the simulation's own.
    const b = forecastBands(simulateForecast(prepareForecast(business()), BASE), null, 0);
    expect(b.weeks.every((w) => !w.bands.calibrated)).toBe(true);
  });
});

describe('the new customers\' rate (issue 17: a burst of sign-ups is not projected at full strength for months)', () => {
  it('a recent burst decays towards the longer-run rate: half the gap in a quarter; a steady business keeps its rate', () => {
    const firstOrders = (n: number, fromDaysAgo: number, toDaysAgo: number) =>
      Array.from({ length: n }, (_, i) => {
        const ago = fromDaysAgo - Math.round(((fromDaysAgo - toDaysAgo) * i) / Math.max(1, n - 1));
        return doc({ contactId: `new-${fromDaysAgo}-${i}`, issueDate: addDays(AS_OF, -ago), status: 'PAID', paidDate: addDays(AS_OF, -ago + 14), total: '1000' });
      });
    const rateAt = (items: ReturnType<typeof doc>[], u: number) => {
      const dp = prepareForecast(input({ items })).daily.find((d) => d.id === 'predicted:new-customers')!;
      return dp.values[u]!;
    };
    // 40 new customers in the last two months, 12 in the 22 months before.
    const burst = [...firstOrders(40, 60, 5), ...firstOrders(12, 720, 200)];
    const start = rateAt(burst, 1);
    const quarter = rateAt(burst, 85); // the last day of the horizon
    expect(quarter).toBeLessThan(0.75 * start);
    // Steady: the same rate of new customers for two years.
    const steady = firstOrders(104, 725, 5);
    expect(rateAt(steady, 85) / rateAt(steady, 1)).toBeCloseTo(1, 1);
  });
});

describe("when new customers pay (session 21: the new customers' receipts came weeks late)", () => {
  // Ten long-standing customers on 45 days' terms, paying on time, ordering monthly for 30 months.
  const old = Array.from({ length: 10 }, (_, i) => paidHistory(`old-${i}`, 30, 0, AS_OF, 45)).flat();
  // `n` customers who first ordered in the last half year, on `terms` days, paying 0-4 days late (or not yet: `paid` false).
  const newcomers = (n: number, { terms = 7, paid = true, from = 150, total = '800', prefix = 'new' } = {}) =>
    Array.from({ length: n }, (_, i) => {
      const issue = addDays(AS_OF, -from + Math.floor((from - 10) / n) * i);
      const due = addDays(issue, terms);
      return paid
        ? doc({ contactId: `${prefix}-${i}`, issueDate: issue, dueDate: due, status: 'PAID', paidDate: addDays(due, i % 5), total })
        : doc({ contactId: `${prefix}-${i}`, issueDate: issue, dueDate: due, total });
    });
  const newCustomers = (items: ReturnType<typeof doc>[], over: Partial<Parameters<typeof input>[0]> = {}) =>
    prepareForecast(input({ items, ...over })).daily.find((d) => d.id === 'predicted:new-customers')!;

  it('Given new customers on shorter terms than the old ones, Then their orders are paid as they pay, not after the usual terms', () => {
    const dp = newCustomers([...old, ...newcomers(8)]);
    // Each newcomer counts once (all of one size) at its terms plus its delay: 7 + (0, 1, 2, 3, 4, 0, 1, 2) days.
    expect(dp.lags).toEqual([7, 8, 9, 9, 11]);
    expect(dp.lag).toBe(9);
    expect(dp.why.reason).toContain("paid as the 8 customers who first ordered in the last 730 days (those first seen in the books' first 13 weeks left out) pay (their terms and payment delays: 9 days from invoice to payment, the median)");
  });

  it('Given new customers who have not paid yet, Then they count at their terms and the business\'s median delay: a slow payer is not left out for being slow', () => {
    // Five paid on 7 days (7-11 days from invoice); ten more recent ones of the same size on 60 days, none due yet; the business pays on time (median delay 0).
    const dp = newCustomers([...old, ...newcomers(5), ...newcomers(10, { terms: 60, paid: false, from: 50, prefix: 'slow' })]);
    expect(dp.lags).toEqual([8, 11, 60, 60, 60]);
  });

  it('Given a large new customer on 60 days and small ones on 7, Then the lags weigh each by its orders\' money', () => {
    const dp = newCustomers([...old, ...newcomers(6), ...newcomers(1, { terms: 60, total: '20000', prefix: 'big' })]);
    // 20,000 of 24,800 is on 60 days: from the 30th percentile on; the 10th percentile (2,480) is the fourth small one's (9 days).
    expect(dp.lags).toEqual([9, 60, 60, 60, 60]);
  });

  it("Given the ledger's opening book on 45 days (customers first seen in the books' first 13 weeks), Then new customers' lags are learnt from the customers after it", () => {
    // The books begin 585 days ago with ten customers ordering monthly on 45 days (within the 730 days the lags read); six
    // newcomers on 7 days in the last half year; one customer arrived 300 days ago, after the opening book, on 45 days.
    const book = Array.from({ length: 10 }, (_, i) => paidHistory(`book-${i}`, 18, 0, AS_OF, 45)).flat();
    const later = paidHistory('later', 9, 0, AS_OF, 45);
    const dp = newCustomers([...book, ...later, ...newcomers(6)]);
    expect(dp.why.reason).toContain('paid as the 7 customers who first ordered');
    // By money: the six newcomers (800 each over their first two orders: 4,800) and the later customer on 45 days (1,000).
    expect(dp.lags).toEqual([7, 8, 9, 11, 45]);
    // Counted as new, the opening book would have put the median at 45 days.
    expect(newCustomers([...book, ...newcomers(6)]).lag).toBeLessThan(45);
  });

  it('Given new customers on repeating invoices, Then they are left out, as the new customers\' rate leaves them out', () => {
    const repeating = newcomers(5, { terms: 0, prefix: 'rep' });
    const schedules = repeating.map((d, i) => ({
      id: `rep-${i}`,
      kind: 'AR' as const,
      contactId: d.contactId,
      status: 'AUTHORISED',
      period: 1,
      unit: 'MONTHLY' as const,
      dueDate: 0,
      dueDateType: 'DAYSAFTERBILLDATE',
      startDate: d.issueDate,
      endDate: null,
      nextScheduledDate: addDays(AS_OF, 10),
      total: '800',
      accountId: null,
      reference: 'Subscription',
    }));
    const dp = newCustomers([...old, ...newcomers(6), ...repeating], { schedules });
    // The six at 7, 8, 9, 10, 11 and 7 days (counting the repeating ones too would start at 1 day).
    expect(dp.lags).toEqual([7, 7, 9, 10, 11]);
    expect(dp.why.reason).toContain('paid as the 6 customers');
  });

  it('property: five quantiles weighed all alike are the unweighted ones; of nothing, zeros', () => {
    expect(fiveQuantiles([])).toEqual([0, 0, 0, 0, 0]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -30, max: 120 }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 5000 }), (xs, w) => {
        expect(fiveQuantiles(xs, xs.map(() => w))).toEqual(fiveQuantiles(xs));
      }),
    );
  });

  it('Given fewer than five new customers, Then the usual terms and delays, as before', () => {
    // Four newcomers, two orders each (enough for a rate of new customers, too few to learn how they pay).
    const twice = [...newcomers(4), ...newcomers(4, { from: 80 })];
    const dp = newCustomers([...old, ...twice]);
    expect(dp.lags).toEqual([45, 45, 45, 45, 45]);
    expect(dp.why.reason).toContain("paid after the usual 45 days' terms and the spread of the business's payment delays");
  });
});

describe('notes about the uncertainty (issue 17)', () => {
  it('a likely shortfall is stated in the notes, with the buffer it is measured against and its likeliest first week', () => {
    const p = runForecast(business('3000'), [BASE], NOW, { calibration: null, threshold: '5000' }).payloads[0]!;
    expect(p.shortfall!.probability).toBeGreaterThan(0.05);
    const note = p.notesForAgent.find((n) => n.text.includes('chance cash goes below'))!;
    expect(note).toMatchObject({ kind: 'trend', window: 'this_quarter' });
    expect(note.text).toContain(`There is a ${Math.round(p.shortfall!.probability * 100)}% chance cash goes below the cash buffer of AUD 5,000 in the next 13 weeks`);
    expect(note.severity).toBe(p.shortfall!.probability >= 0.2 ? 'warn' : 'info');
    // One note per kind and window: the low-point note, if any, carries it.
    expect(p.notesForAgent.filter((n) => n.kind === 'trend' && n.window === 'this_quarter')).toHaveLength(1);
  });

  it("what drives the band: one late-paying customer's large invoices dominate the week that matters, and the note says so without naming it", () => {
    const items = [
      ...paidHistory('big', 12, 35),
      ...paidHistory('small', 12, 0),
      doc({ contactId: 'big', issueDate: addDays(AS_OF, -20), total: '40000' }),
      doc({ contactId: 'big', issueDate: addDays(AS_OF, -12), total: '30000' }),
      doc({ contactId: 'small', issueDate: addDays(AS_OF, -3), total: '300' }),
    ];
    const p = runForecast(input({ items }), [BASE], NOW).payloads[0]!;
    const driver = p.notesForAgent.find((n) => n.kind === 'ar' && n.window === 'this_quarter')!;
    expect(driver.text).toMatch(/^(Most|About \d+%) of the uncertainty about cash in the week of \d+ \w+ 2026 is 2 open invoices of one customer, who has paid between/);
    expect(driver.text).not.toContain('big');
    expect(driver.contact).toBeUndefined();
  });

  it('a likely shortfall whose week no one source drives says where its uncertainty comes from, by kind of source, with each share', () => {
    // Ten like customers, each with its history and an open invoice, and a large bill due in two weeks: cash may run short, and no customer is most of why.
    const customers = Array.from({ length: 10 }, (_, i) => `c${i}`);
    const items = [
      ...customers.flatMap((c, i) => [...paidHistory(c, 12, 5 + i), doc({ contactId: c, issueDate: addDays(AS_OF, -10 - i), total: '1500' })]),
      doc({ kind: 'AP', contactId: 'landlord', issueDate: addDays(AS_OF, -16), dueDate: addDays(AS_OF, 10), total: '21000' }),
    ];
    const bank = [{ id: 'bank-1', name: 'Cheque', currency: 'AUD', reconciledBalance: '4000', statementBalance: null, unreconciledNet: '0' }];
    const p = runForecast(input({ items, bankAccounts: bank }), [BASE], NOW, { calibration: null, threshold: '0' }).payloads[0]!;
    expect(p.shortfall!.probability).toBeGreaterThan(0.05);
    expect(p.notesForAgent.some((n) => n.kind === 'ar' && n.window === 'this_quarter')).toBe(false);
    const note = p.notesForAgent.find((n) => n.kind === 'trend' && n.window === 'this_quarter')!;
    const week = p.weeks[p.shortfall!.firstLikelyWeekIndex ?? p.minClosingCashWeekIndex]!;
    const m = /The uncertainty about cash in the week of (\d+ \w+ \d{4}) is spread over many sources: (.+)\.$/.exec(note.text)!;
    expect(m, note.text).not.toBeNull();
    expect(m[1]).toBe(new Date(`${week.weekStart}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }));
    const parts = m[2]!.split(/, (?=[a-z\d])/).map((x) => /^(.+) \((\d+)%\)$/.exec(x)!);
    expect(parts.length).toBeGreaterThanOrEqual(1);
    expect(parts.length).toBeLessThanOrEqual(3);
    const shares = parts.map((x) => Number(x[2]));
    // Largest first, each at least 10%, together at most all of it.
    expect([...shares].sort((a, b) => b - a)).toEqual(shares);
    expect(Math.min(...shares)).toBeGreaterThanOrEqual(10);
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(101);
    // The ten customers' open invoices are told with their count.
    expect(m[2]).toContain('open invoices of 10 customers');
  });

  it("what drives the band names the customer when the input has its name, and says which contact it names (for redaction at read)", () => {
    const items = [
      ...paidHistory('big', 12, 35),
      ...paidHistory('small', 12, 0),
      doc({ contactId: 'big', issueDate: addDays(AS_OF, -20), total: '40000' }),
      doc({ contactId: 'big', issueDate: addDays(AS_OF, -12), total: '30000' }),
      doc({ contactId: 'small', issueDate: addDays(AS_OF, -3), total: '300' }),
    ];
    const p = runForecast(input({ items, contactNames: { big: 'Acme Wholesale', small: 'Corner Cafe' } }), [BASE], NOW).payloads[0]!;
    const driver = p.notesForAgent.find((n) => n.kind === 'ar' && n.window === 'this_quarter')!;
    expect(driver.text).toMatch(/^(Most|About \d+%) of the uncertainty about cash in the week of \d+ \w+ 2026 is 2 open invoices of Acme Wholesale, who has paid between \d+ days after the due date and \d+ days after the due date\.$/);
    expect(driver.contact).toEqual({ id: 'big', name: 'Acme Wholesale' });
    // A read without READ_SENSITIVE, once 'big' is sensitive: the name is gone from the text and from contact, one item redacted.
    const read = redactNotes(p.notesForAgent, new Set(['big']));
    const hidden = read.notes.find((n) => n.kind === 'ar' && n.window === 'this_quarter')!;
    expect(hidden.text).toContain('2 open invoices of Sensitive contact, who has paid');
    expect(JSON.stringify(read.notes)).not.toContain('Acme');
    expect(hidden.contact).toEqual({ id: 'big', name: 'Sensitive contact' });
    expect(read.redacted).toBe(1);
    // Another contact sensitive: nothing to rewrite.
    expect(redactNotes(p.notesForAgent, new Set(['small']))).toEqual({ notes: p.notesForAgent, redacted: 0 });
  });
});

describe('the calibration replay', () => {
  it('replays weekly cut-offs for an ordinary ledger and fewer for a very large one (a nightly budget), never fewer than one every 4 weeks', () => {
    expect(calibrationEvery(5_000)).toBe(7);
    expect(calibrationEvery(48_000)).toBe(7);
    expect(calibrationEvery(100_000)).toBe(21);
    expect(calibrationEvery(400_000)).toBe(28);
    expect(calibrationEvery(10_000_000)).toBe(28);
  });
});
