/**
 * A new customer's later orders (docs/forecast.md#new-customers), learnt from
 * the business's own customers: how much they ordered on each day after
 * their first order, over what their first order was. A customer with one
 * order so far has no renewal model of its own (a gap is needed), and a
 * customer who arrives within the 13 weeks orders again within them (a
 * subscription every month): both are expected to order as the business's
 * customers did after their first, given (for the one-order customer) that
 * they had not ordered again by the same age.
 */

/** A customer's first order and its later ones (days, seasonally adjusted values). */
export interface FirstOrder {
  day: number;
  value: number;
  later: readonly { day: number; value: number }[];
}

/** A curve's point stands on this many customers at least, else it is 0. */
export const MIN_COHORT = 5;

/**
 * For customers of age `age` (days from the first order to asOf) with no
 * later order before asOf: the money of their orders on day asOf + u (an
 * offset of age + u from the first; u = 1..H) over their first order's,
 * read off the customers `firsts` whose first order is old enough for that
 * offset to have been seen (before asOf) and who had not ordered again by the
 * same age either (money over money: a small first order does not weigh
 * more). Age 0 is a customer arriving today: the curve at u is its orders u
 * days after its first.
 */
export function laterOrderCurve(firsts: readonly FirstOrder[], asOf: number, age: number, H: number): Float64Array {
  const curve = new Float64Array(H + 1);
  const money = new Float64Array(H + 1);
  // Difference arrays: the first-order money and the customers seen at each u.
  const base = new Float64Array(H + 2);
  const count = new Float64Array(H + 2);
  for (const f of firsts) {
    if (!(f.value > 0)) continue;
    // Seen up to the offset of asOf - 1.
    const seen = Math.min(H, asOf - 1 - f.day - age);
    if (seen < 1 || f.later.some((o) => o.day - f.day < age)) continue;
    base[1]! += f.value;
    base[seen + 1]! -= f.value;
    count[1]! += 1;
    count[seen + 1]! -= 1;
    for (const o of f.later) {
      const u = o.day - f.day - age;
      if (u >= 1 && u <= seen) money[u]! += o.value;
    }
  }
  let b = 0;
  let n = 0;
  for (let u = 1; u <= H; u++) {
    b += base[u]!;
    n += count[u]!;
    curve[u] = n >= MIN_COHORT && b > 0 ? money[u]! / b : 0;
  }
  return curve;
}

/** How many of `firsts` have been seen for `H` days after their first order (before asOf): the customers the whole curve stands on. */
export function cohortSupport(firsts: readonly FirstOrder[], asOf: number, H: number): number {
  return firsts.filter((f) => f.value > 0 && asOf - 1 - f.day >= H).length;
}
