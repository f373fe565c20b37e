/**
 * `cashline forecast --chart`: the weekly closing cash of a ForecastResponse
 * (spec 2.3: weeks[].weekStart, weeks[].closing, startingCash, endingCash,
 * minClosingCash, minClosingCashWeekIndex, scenarioName) as one horizontal
 * bar per week, drawn from a zero axis (negative weeks to the left of it),
 * labelled with the week's start and its exact closing amount. Pure: text in,
 * text out. Bar lengths are computed with decimal.js (amounts are decimal
 * strings, never floats); the labels are the API's amounts, exact, shown as
 * `--format table` shows money: thousands grouped, and cents when any amount
 * has a fraction ('310557.8' as 310,557.80; never rounded).
 */
import { Decimal } from 'decimal.js';
import { fractionDigits, padFraction } from './format.js';

/** The fields of a ForecastResponse the chart reads (spec 2.3). */
export interface ForecastChartInput {
  scenarioName?: string | null | undefined;
  scenarioKind?: string | null | undefined;
  computedAt?: string | undefined;
  startingCash: string;
  endingCash: string;
  minClosingCash?: string | null | undefined;
  minClosingCashWeekIndex?: number | null | undefined;
  currency?: string | null | undefined;
  weeks: readonly { weekStart: string; weekEnd?: string; closing: string; bands?: { closing: { p10: string; p90: string }; calibrated?: boolean } | undefined }[];
  shortfall?: { threshold: string; probability: number; firstLikelyWeekIndex: number | null; cushion90?: string | undefined } | undefined;
  ledgerAlert?: { message: string; severity: string } | undefined;
}

export interface ChartOptions {
  /** Characters available for the bars (default 48). */
  width?: number;
}

const FULL = '█';
const NEG = '▓';
/** The 80% band (P10 to P90) where the bar does not cover it. */
const BAND = '░';

/** Thousands separators on a decimal string, exact (no float on the way). */
export function groupThousands(s: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(s);
  if (!m) return s;
  return `${m[1]}${m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${m[3] ?? ''}`;
}

export function forecastChart(f: ForecastChartInput, opts: ChartOptions = {}): string {
  const width = Math.max(10, opts.width ?? 48);
  const weeks = f.weeks;
  const scenario = f.scenarioName ?? f.scenarioKind ?? 'forecast';
  const head = `Closing cash by week, ${weeks.length} week${weeks.length === 1 ? '' : 's'} (${scenario})${f.currency ? `, ${f.currency}` : ''}`;
  const lines = [head];
  if (f.ledgerAlert) lines.push(`LEDGER ALERT [${f.ledgerAlert.severity}]: ${f.ledgerAlert.message}`);
  if (!weeks.length) return `${[...lines, '(no weeks)'].join('\n')}\n`;

  // Every amount the chart states, with as many fraction digits as the most precise (at least two when any).
  const stated = [f.startingCash, f.endingCash, f.minClosingCash ?? '0', ...weeks.flatMap((w) => [w.closing, ...(w.bands ? [w.bands.closing.p10, w.bands.closing.p90] : [])])];
  const most = Math.max(0, ...stated.map(fractionDigits));
  const money = (s: string) => groupThousands(padFraction(s, most === 0 ? 0 : Math.max(2, most)));
  const closings = weeks.map((w) => new Decimal(w.closing));
  const bands = weeks.map((w) => (w.bands ? { lo: new Decimal(w.bands.closing.p10), hi: new Decimal(w.bands.closing.p90) } : null));
  const extremes = [...closings, ...bands.flatMap((b) => (b ? [b.lo, b.hi] : []))];
  const max = Decimal.max(0, ...extremes);
  const min = Decimal.min(0, ...extremes);
  const span = max.minus(min);
  // Columns left of the zero axis (for negative weeks) and right of it.
  const negCols = span.isZero() ? 0 : min.negated().div(span).mul(width).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
  const posCols = width - negCols;
  const barLen = (v: Decimal) =>
    span.isZero() || v.isZero() ? 0 : Math.max(1, v.abs().div(span).mul(width).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber());

  let lowest = f.minClosingCashWeekIndex ?? undefined;
  if (lowest === undefined || lowest < 0 || lowest >= weeks.length) {
    lowest = 0;
    closings.forEach((c, i) => {
      if (c.lt(closings[lowest!]!)) lowest = i;
    });
  }

  // Column of a value: left of the axis for negative values (column negCols is the first right of it).
  const colOf = (v: Decimal) => (v.isNegative() ? negCols - Math.min(barLen(v), negCols) : negCols + Math.min(barLen(v), posCols) - 1);
  const labels = weeks.map((w) => money(w.closing));
  const labelWidth = Math.max(...labels.map((l) => l.length));
  const rangeLabels = weeks.map((w) => (w.bands ? `P10 ${money(w.bands.closing.p10)} .. P90 ${money(w.bands.closing.p90)}` : ''));
  const rangeWidth = Math.max(...rangeLabels.map((l) => l.length));
  weeks.forEach((w, i) => {
    const c = closings[i]!;
    const n = Math.min(barLen(c), c.isNegative() ? negCols : posCols);
    const cells = Array.from({ length: width }, () => ' ');
    const b = bands[i];
    if (b) for (let k = colOf(b.lo); k <= colOf(b.hi); k++) if (k >= 0 && k < width) cells[k] = BAND;
    if (c.isNegative()) for (let k = negCols - n; k < negCols; k++) cells[k] = NEG;
    else for (let k = negCols; k < negCols + n; k++) cells[k] = FULL;
    const axis = negCols > 0 ? '|' : '';
    const drawn = `${cells.slice(0, negCols).join('')}${axis}${cells.slice(negCols).join('')}`;
    const range = rangeWidth ? `  ${rangeLabels[i]!.padEnd(rangeWidth)}` : '';
    const mark = i === lowest ? '  <- lowest' : '';
    lines.push(`${String(i + 1).padStart(2)}  ${w.weekStart}  ${drawn}  ${labels[i]!.padStart(labelWidth)}${range}${mark}`);
  });
  lines.push(
    `starting ${money(f.startingCash)}, ending ${money(f.endingCash)}, lowest ${money(f.minClosingCash ?? weeks[lowest]!.closing)} (week ${lowest + 1}, ${weeks[lowest]!.weekStart})`,
  );
  if (closings.some((c) => c.isNegative())) lines.push(`${NEG} below zero`);
  if (bands.some(Boolean)) {
    const calibrated = weeks.every((w) => !w.bands || w.bands.calibrated !== false);
    lines.push(`${BAND} 80% band (P10 to P90: 8 futures in 10 end the week inside it)${calibrated ? '' : '; not yet calibrated on this organisation\'s history'}`);
  }
  if (f.shortfall) {
    const pct = Math.round(f.shortfall.probability * 100);
    const below = f.shortfall.threshold === '0' ? 'zero' : money(f.shortfall.threshold);
    const when = f.shortfall.firstLikelyWeekIndex !== null && weeks[f.shortfall.firstLikelyWeekIndex] ? `, most likely first in week ${f.shortfall.firstLikelyWeekIndex + 1} (${weeks[f.shortfall.firstLikelyWeekIndex]!.weekStart})` : '';
    lines.push(`chance of going below ${below} in the 13 weeks: ${pct}%${when}`);
    if (f.shortfall.cushion90 !== undefined && Number(f.shortfall.cushion90) > 0) lines.push(`cash to line up today to stay above ${below} in 9 futures of 10: ${money(f.shortfall.cushion90)}`);
  }
  return `${lines.join('\n')}\n`;
}
