/**
 * `cashline forecast --chart`: the weekly closing cash of a ForecastResponse
 * (spec 2.3: weeks[].weekStart, weeks[].closing, startingCash, endingCash,
 * minClosingCash, minClosingCashWeekIndex, scenarioName) as one horizontal
 * bar per week, drawn from a zero axis (negative weeks to the left of it),
 * labelled with the week's start and its exact closing amount. Pure: text in,
 * text out. Bar lengths are computed with decimal.js (amounts are decimal
 * strings, never floats); the labels are the API's strings, unchanged.
 */
import { Decimal } from 'decimal.js';

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
  weeks: readonly { weekStart: string; weekEnd?: string; closing: string }[];
  ledgerAlert?: { message: string; severity: string } | undefined;
}

export interface ChartOptions {
  /** Characters available for the bars (default 48). */
  width?: number;
}

const FULL = '█';
const NEG = '▓';

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

  const closings = weeks.map((w) => new Decimal(w.closing));
  const max = Decimal.max(0, ...closings);
  const min = Decimal.min(0, ...closings);
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

  const labels = weeks.map((w) => groupThousands(w.closing));
  const labelWidth = Math.max(...labels.map((l) => l.length));
  weeks.forEach((w, i) => {
    const c = closings[i]!;
    const n = Math.min(barLen(c), c.isNegative() ? negCols : posCols);
    const left = c.isNegative() ? `${' '.repeat(negCols - n)}${NEG.repeat(n)}` : ' '.repeat(negCols);
    const right = c.isNegative() ? ' '.repeat(posCols) : `${FULL.repeat(n)}${' '.repeat(posCols - n)}`;
    const axis = negCols > 0 ? '|' : '';
    const mark = i === lowest ? '  <- lowest' : '';
    lines.push(`${String(i + 1).padStart(2)}  ${w.weekStart}  ${left}${axis}${right}  ${labels[i]!.padStart(labelWidth)}${mark}`);
  });
  lines.push(
    `starting ${groupThousands(f.startingCash)}, ending ${groupThousands(f.endingCash)}, lowest ${groupThousands(f.minClosingCash ?? weeks[lowest]!.closing)} (week ${lowest + 1}, ${weeks[lowest]!.weekStart})`,
  );
  if (closings.some((c) => c.isNegative())) lines.push(`${NEG} below zero`);
  return `${lines.join('\n')}\n`;
}
