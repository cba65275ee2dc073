/** Small text helpers for the analysers' sentences. Pure. */

/** `s` on one line, cut to `max` characters with an ellipsis. */
export function clip(s: string, max = 160): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** `1 call`, `3 calls`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** `a`, `a and b`, `a, b and c`; with more than `max` items: `a, b, c and 4 more`. */
export function listOf(items: readonly string[], max = 5): string {
  if (items.length <= 1) return items[0] ?? '';
  const shown = items.slice(0, max);
  const rest = items.length - shown.length;
  if (rest > 0) return `${shown.join(', ')} and ${rest} more`;
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/** A duration for people: `850 ms`, `12.4 s`, `3 min 5 s`, `2 h 4 min`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${Math.round(s * 10) / 10} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `send_money ×3, read_file ×1` from a name → count map, most frequent first (ties by name). */
export function counted(counts: Record<string, number>, max = 5): string {
  const items = Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${k} ×${n}`);
  return listOf(items, max);
}

/** A JSON-ish value shown short: strings quoted, others JSON, cut to `max`. */
export function showValue(v: unknown, max = 80): string {
  if (typeof v === 'string') return `"${clip(v, max - 2)}"`;
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return clip(s, max);
}

/** `s` with every RegExp metacharacter escaped, to match it literally inside a built pattern. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
