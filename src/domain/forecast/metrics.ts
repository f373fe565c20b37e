/**
 * The forecast's measures, one definition for the backtest and GET
 * /forecast/accuracy (docs/forecast.md#backtest, #accuracy), over every (cut-off,
 * week) cell with actual y, point forecast F and quantile forecasts F_q:
 * - mae: mean |F - y| (exact, in the base currency); wape: sum |F - y| / sum |y|;
 * - pinball: sum over cells and q in {0.1, 0.5, 0.9} of rho_q(y - F_q), divided
 *   by sum |y|, where rho_q(u) = max(q u, (q - 1) u);
 * - coverage80: the share of cells with F_0.1 <= y <= F_0.9; per horizon week
 *   also below10 and above90, the shares below F_0.1 and above F_0.9 (an 80%
 *   band can hold 80% and still miss on one side only: 1% below, 19% above);
 * - width80: sum (F_0.9 - F_0.1) / sum |y|.
 */
import { canonical, D, type Dec } from '../money.js';
import { conformalQuantile, pinballLoss, type Quantiles } from './calibrate.js';

export interface Metric {
  mae: string;
  wape: number;
  pinball: number;
  coverage80: number;
  width80: number;
}

export interface HorizonMetric {
  /** 1-13. */
  week: number;
  wape: number;
  coverage80: number;
  /** The share of cells below F_0.1 (0.1 is right). */
  below10: number;
  /** The share of cells above F_0.9 (0.1 is right). */
  above90: number;
}

const ratio = (num: number, den: number) => (den === 0 ? (num === 0 ? 0 : 1) : Math.round((num / den) * 10_000) / 10_000);

/** Sums of one method's errors on one figure. */
export class Scorer {
  private abs = new D(0);
  private actual = new D(0);
  private n = 0;
  private actualF = 0;
  private pinballSum = 0;
  private covered = 0;
  private below = 0;
  private above = 0;
  private width = 0;

  add(point: Dec, actual: Dec, band: Quantiles): void {
    this.abs = this.abs.plus(point.minus(actual).abs());
    this.actual = this.actual.plus(actual.abs());
    this.n++;
    const y = actual.toNumber();
    this.actualF += Math.abs(y);
    this.pinballSum += pinballLoss(band, y);
    // A band with an edge that is not a number holds nothing and misses on neither side.
    if (y >= band.p10 && y <= band.p90) this.covered++;
    else if (y < band.p10) this.below++;
    else if (y > band.p90) this.above++;
    this.width += band.p90 - band.p10;
  }

  metric(): Metric {
    return {
      mae: canonical(this.n ? this.abs.div(this.n).toDecimalPlaces(2) : 0),
      wape: this.actual.isZero() ? (this.abs.isZero() ? 0 : 1) : Number(this.abs.div(this.actual).toDecimalPlaces(4)),
      pinball: ratio(this.pinballSum, this.actualF),
      coverage80: this.share(this.covered),
      width80: ratio(this.width, this.actualF),
    };
  }

  horizon(week: number): HorizonMetric {
    const m = this.metric();
    return { week, wape: m.wape, coverage80: m.coverage80, below10: this.share(this.below), above90: this.share(this.above) };
  }

  /** `count` cells as a share of all (4 decimals; 0 without cells). */
  private share(count: number): number {
    return this.n ? Math.round((count / this.n) * 10_000) / 10_000 : 0;
  }
}

/**
 * A baseline's band: its point forecast plus the quantiles of its own errors
 * (actual - forecast) at the same horizon week over the earlier cut-offs
 * whose weeks had happened; no width before it has any.
 */
export class ErrorBands {
  private readonly errors: { day: number; e: number }[][];

  constructor(weeks: number) {
    this.errors = Array.from({ length: weeks }, () => []);
  }

  band(h: number, point: number, day: number): Quantiles {
    const known = this.errors[h]!.filter((x) => x.day <= day)
      .map((x) => x.e)
      .sort((a, b) => a - b);
    if (known.length === 0) return { p10: point, p50: point, p90: point };
    return { p10: point + conformalQuantile(known, 0.1), p50: point + conformalQuantile(known, 0.5), p90: point + conformalQuantile(known, 0.9) };
  }

  /** The error of week h, known from `day` on. */
  observe(h: number, day: number, point: number, actual: number): void {
    this.errors[h]!.push({ day, e: actual - point });
  }
}

export interface ReliabilityBin {
  /** The bin of predicted probabilities [from, to). */
  from: number;
  to: number;
  /** Cells in the bin. */
  n: number;
  /** Their mean predicted probability. */
  predicted: number;
  /** The share of them in which the event happened. */
  observed: number;
}

export interface ReliabilityTable {
  /** What the probability was of. */
  event: string;
  cells: number;
  /** Mean squared difference between the predicted probability and the outcome (0 or 1): 0 is perfect, 0.25 is a coin toss's. */
  brier: number;
  /** The Brier score of always predicting the overall frequency (the reference a useful forecast beats). */
  brierClimatology: number;
  bins: ReliabilityBin[];
}

/** How well stated probabilities match frequencies: a reliability table in ten bins and the Brier score. */
export class Reliability {
  private readonly cells: { p: number; y: number }[] = [];

  constructor(private readonly event: string) {}

  add(p: number, happened: boolean): void {
    this.cells.push({ p, y: happened ? 1 : 0 });
  }

  table(): ReliabilityTable {
    const n = this.cells.length;
    const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
    const base = n ? this.cells.reduce((a, c) => a + c.y, 0) / n : 0;
    const bins: ReliabilityBin[] = [];
    for (let b = 0; b < 10; b++) {
      const from = b / 10;
      const to = (b + 1) / 10;
      const inBin = this.cells.filter((c) => c.p >= from && (c.p < to || (b === 9 && c.p <= 1)));
      if (inBin.length === 0) continue;
      bins.push({
        from,
        to,
        n: inBin.length,
        predicted: r4(inBin.reduce((a, c) => a + c.p, 0) / inBin.length),
        observed: r4(inBin.reduce((a, c) => a + c.y, 0) / inBin.length),
      });
    }
    return {
      event: this.event,
      cells: n,
      brier: n ? r4(this.cells.reduce((a, c) => a + (c.p - c.y) ** 2, 0) / n) : 0,
      brierClimatology: n ? r4(this.cells.reduce((a, c) => a + (base - c.y) ** 2, 0) / n) : 0,
      bins,
    };
  }
}

/** How often a stated cushion covered what happened: the share of cut-offs whose largest shortfall was at most the cushion. */
export interface CushionCoverage {
  /** The share of futures the cushion is stated for (0.9: 9 in 10). */
  level: number;
  cutoffs: number;
  /** The share of cut-offs whose actual largest shortfall (over the 13 weeks) was at most the cushion stated at the cut-off. */
  held: number | null;
  /** The same, of the cut-offs with a cushion above 0 (a shortfall stated as more likely than 1 in 10). */
  whenStated: { cutoffs: number; held: number | null };
}

/** Counts, cut-off by cut-off, whether the cushion stated covered the shortfall that then happened. */
export class CushionCounter {
  private n = 0;
  private held = 0;
  private stated = 0;
  private statedHeld = 0;

  constructor(private readonly level: number) {}

  add(cushion: number, shortfall: number): void {
    const ok = shortfall <= cushion + 0.005;
    this.n++;
    if (ok) this.held++;
    if (cushion > 0) {
      this.stated++;
      if (ok) this.statedHeld++;
    }
  }

  table(): CushionCoverage {
    const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
    return {
      level: this.level,
      cutoffs: this.n,
      held: this.n ? r4(this.held / this.n) : null,
      whenStated: { cutoffs: this.stated, held: this.stated ? r4(this.statedHeld / this.stated) : null },
    };
  }
}
