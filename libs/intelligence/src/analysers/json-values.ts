import { leafPairs } from './similarity';

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
