/** The `p`-th percentile (0–100, nearest rank) of `values`; NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median (50th percentile, nearest rank); NaN when empty. */
export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Arithmetic mean; NaN when empty. */
export function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** An integer with thousands separators (`12,345`), or `–` for NaN. */
export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

/** Milliseconds with one decimal below 10 ms, none above; `–` for NaN. */
export function fmtMs(n: number): string {
  if (!Number.isFinite(n)) return '–';
  return n < 10 ? `${n.toFixed(1)} ms` : `${Math.round(n).toLocaleString('en-US')} ms`;
}

/** `a / b` as a percentage (`63%`); `–` when undefined. */
export function fmtRatio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${Math.round((a / b) * 100)} %` : '–';
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
