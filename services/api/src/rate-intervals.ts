/**
 * Confidence intervals for rates and for the difference of two rates, used by the agent version
 * comparison (docs/architecture.md#comparing-versions). Pure functions, no I/O.
 *
 * - One rate: the Wilson score interval (Wilson 1927; method 3 of Newcombe, "Two-sided confidence
 *   intervals for the single proportion", Statistics in Medicine 17:857–872, 1998), which stays in
 *   [0, 1] and is sensible for 0/n and n/n, unlike the normal ("Wald") interval.
 * - A difference of two independent rates: Newcombe's hybrid score interval (method 10 of Newcombe,
 *   "Interval estimation for the difference between independent proportions", Statistics in
 *   Medicine 17:873–890, 1998), built from the two Wilson intervals.
 */

/** A two-sided interval, both ends in the unit of the estimate. */
export interface Interval {
  low: number;
  high: number;
}

/** z for a two-sided 95 % interval (the 0.975 quantile of the standard normal). */
export const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of `successes` out of `n`, at `z` (default 95 %). Returns null when
 * `n` is 0 (no rate). Throws a RangeError when the counts are not integers with 0 ≤ successes ≤ n.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): Interval | null {
  checkCounts(successes, n);
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denom = 1 + z2 / n;
  return { low: clamp01((centre - spread) / denom), high: clamp01((centre + spread) / denom) };
}

/**
 * Newcombe's method-10 interval of `p1 − p2` where `p1 = x1/n1` (the compared version) and
 * `p2 = x2/n2` (the baseline): `d − √((p1−l1)² + (u2−p2)²)` to `d + √((u1−p1)² + (p2−l2)²)`, with
 * `(l, u)` the Wilson intervals. Null when either `n` is 0. Throws like {@link wilsonInterval}.
 */
export function newcombeDifference(
  x1: number,
  n1: number,
  x2: number,
  n2: number,
  z = Z95,
): (Interval & { estimate: number }) | null {
  const w1 = wilsonInterval(x1, n1, z);
  const w2 = wilsonInterval(x2, n2, z);
  if (!w1 || !w2) return null;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const d = p1 - p2;
  const low = d - Math.sqrt((p1 - w1.low) ** 2 + (w2.high - p2) ** 2);
  const high = d + Math.sqrt((w1.high - p1) ** 2 + (p2 - w2.low) ** 2);
  return { estimate: d, low: Math.max(-1, low), high: Math.min(1, high) };
}

/** The median of `values` (mean of the two middle ones for an even count); null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function checkCounts(x: number, n: number): void {
  if (!Number.isInteger(x) || !Number.isInteger(n) || x < 0 || n < 0 || x > n)
    throw new RangeError(`need integers 0 ≤ successes ≤ n, got ${x} of ${n}`);
}

// Rounding can put an end a hair outside [0, 1] (e.g. 0/n gives -1e-17).
const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
