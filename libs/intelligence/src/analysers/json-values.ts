import { isIdArgument, leafPairs } from './similarity';

/**
 * A tool result as a JSON value: a string that holds a JSON object or array (results often arrive
 * as JSON text) is parsed; anything else — a value already parsed, plain text, JSON that does not
 * parse — is returned as it is. Pure.
 */
export function parsedResult(result: unknown): unknown {
  if (typeof result !== 'string') return result;
  const t = result.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return result;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return result;
  }
}

/** The scalar leaves of a JSON value as strings, at any depth (`{a: [1, "x"]}` → `1`, `x`). Pure. */
export function leafValues(v: unknown): string[] {
  return leafPairs(v).map((p) => {
    const raw = p.slice(p.indexOf('=') + 1);
    try {
      const x = JSON.parse(raw) as unknown;
      return typeof x === 'string' || typeof x === 'number' ? String(x) : raw;
    } catch {
      return raw;
    }
  });
}

/** Shortest identifier value followed from a result into a later call, characters. */
export const MIN_ID_LENGTH = 3;

/** `key: value` / `key=value` pairs of a text result (YAML listings, logfmt, plain listings). */
const TEXT_PAIR = /(?:^|[\s{,(-])["']?([A-Za-z]\w*?)["']?\s*[:=]\s*["']?([\w.:@-]+)/gm;

/**
 * Values a result returns under identifying keys ({@link isIdArgument}): at any depth of a JSON
 * result, in the `key: value` lines of a text one (a YAML listing); a result that is itself one
 * short word with a digit counts as an id. Values shorter than `minLength` characters are left out.
 * Without repeats. Pure.
 */
export function resultIds(result: unknown, minLength = MIN_ID_LENGTH): string[] {
  const out: string[] = [];
  const add = (s: string) => {
    if (s.length >= minLength) out.push(s);
  };
  const walk = (x: unknown, key: string) => {
    if (Array.isArray(x)) for (const y of x) walk(y, key);
    else if (x && typeof x === 'object')
      for (const [k, y] of Object.entries(x as Record<string, unknown>)) walk(y, k);
    else if ((typeof x === 'string' || typeof x === 'number') && isIdArgument(key)) add(String(x).trim());
  };
  const v = parsedResult(result);
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^[\w.:-]{1,64}$/.test(t)) return /\d/.test(t) && t.length >= minLength ? [t] : [];
    for (const m of t.matchAll(TEXT_PAIR)) if (isIdArgument(m[1] ?? '')) add(m[2] ?? '');
  } else walk(v, '');
  return [...new Set(out)];
}
