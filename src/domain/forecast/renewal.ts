/**
 * A renewal (hazard) model of the time between a contact's events - a
 * customer's orders, a supplier's bills without a calendar cadence
 * (docs/forecast.md#predicted-repeat-purchases).
 *
 * The time between events follows the contact's own gaps, each smoothed by a
 * Gaussian kernel (bandwidth grows as the history shrinks), and each gap may
 * instead be the last one (the contact stops: probability `churn`). Given
 * that `t0` days have passed since the last event with nothing new, the next
 * event comes on day t0 + u with probability (1 - churn) g(t0 + u) /
 * ((1 - churn) S(t0) + churn): the longer a regular customer is silent
 * beyond its usual gap, the less likely it is to come back. Later events
 * follow by the renewal equation m(u) = f1(u) + sum_v m(v) (1 - churn) g(u - v).
 */
export interface GapModel {
  /** g[x]: probability of a gap of x days (x >= 1). */
  g: Float64Array;
  /** surv[x]: probability of a gap longer than x days. */
  surv: Float64Array;
  lo: number;
  hi: number;
}

const MAX_GAP = 730;

/** The kernel-smoothed gap distribution of gaps in whole days; null without gaps. */
export function gapModel(gaps: readonly number[]): GapModel | null {
  if (gaps.length === 0) return null;
  const sorted = [...gaps].sort((a, b) => a - b);
  const med = sorted[(sorted.length - 1) >> 1]!;
  // Few gaps: a wide kernel (we know little); many: the spread of the gaps themselves shows.
  const h = Math.max(1, med * (0.08 + 0.25 / Math.sqrt(gaps.length)));
  const G = Math.min(MAX_GAP, Math.ceil(sorted[sorted.length - 1]! + 4 * h) + 1);
  const g = new Float64Array(G + 1);
  // The kernel's weight at each whole-day offset d from a gap (gaps are whole days), computed once: w[d - dLo].
  const dLo = Math.floor(-4 * h);
  const dHi = Math.ceil(4 * h);
  const w = new Float64Array(dHi - dLo + 1);
  for (let d = dLo; d <= dHi; d++) {
    const z = d / h;
    w[d - dLo] = Math.exp(-0.5 * z * z);
  }
  for (const x0 of gaps) {
    const from = Math.max(1, Math.floor(x0 - 4 * h));
    const to = Math.min(G, Math.ceil(x0 + 4 * h));
    let norm = 0;
    for (let x = from; x <= to; x++) norm += w[x - x0 - dLo]!;
    if (norm <= 0) continue;
    const k = 1 / norm / gaps.length;
    for (let x = from; x <= to; x++) g[x]! += w[x - x0 - dLo]! * k;
  }
  const surv = new Float64Array(G + 2);
  let s = 0;
  for (let x = G; x >= 0; x--) {
    surv[x] = s;
    s += g[x]!;
  }
  let lo = 1;
  while (lo < G && g[lo]! < 1e-9) lo++;
  let hi = G;
  while (hi > lo && g[hi]! < 1e-9) hi--;
  return { g, surv, lo, hi };
}

/**
 * Expected number of events on each day t0 + u, u = 1..H after the last one
 * (index u; index 0 unused), given none in the t0 days since; with `first`,
 * also given something known of the next event whose chance, were the
 * next event on day t0 + u, is first(u) (a supplier's order not placed yet).
 */
export function renewalDensity(model: GapModel, t0: number, H: number, churn: number, first?: (u: number) => number): Float64Array {
  const { g, surv, lo, hi } = model;
  const m = new Float64Array(H + 1);
  const s0 = t0 < surv.length ? surv[t0]! : 0;
  let den = (1 - churn) * s0 + churn;
  if (den <= 0) return m;
  const keep = 1 - churn;
  if (first) {
    // Given also what `first` says of the next event (the chance of what is known on day t0 + u were it then): Bayes over every day it could come.
    let known = churn;
    for (let x = Math.max(lo, t0 + 1); x <= hi; x++) known += keep * g[x]! * first(x - t0);
    if (known <= 0) return m;
    den = known;
  }
  for (let u = 1; u <= H; u++) {
    const x = t0 + u;
    let v = x <= hi && x >= lo ? (keep * g[x]! * (first ? first(u) : 1)) / den : 0;
    const top = Math.min(hi, u - 1);
    for (let k = lo; k <= top; k++) v += m[u - k]! * keep * g[k]!;
    m[u] = v;
  }
  return m;
}
