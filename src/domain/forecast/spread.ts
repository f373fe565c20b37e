/** How much amounts vary: the standard deviation over the mean (0 under three of them, or for a mean of 0). The simulation's spread of an amount. */
export function relativeSpread(values: readonly number[]): number {
  if (values.length < 3) return 0;
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  if (!(mean > 0)) return 0;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1));
  return sd / mean;
}
