import type { JsonObject } from '@agent-warden/contracts';

/** Largest JSON form of one tool result or argument object kept in an event, characters. */
export const MAX_VALUE_CHARS = 64 * 1024;
/** Deepest nesting kept; deeper values become `'[Depth]'`. */
const MAX_DEPTH = 20;

/**
 * A JSON-safe copy of any value, for event payloads: `undefined` and symbols are dropped
 * (`null` inside arrays), functions become `'[Function name]'`, `bigint` a string, `Error`
 * `{ name, message }`, `Map` an object, `Set` an array, `Date` its ISO string, cycles
 * `'[Circular]'`. When the JSON form is longer than `maxChars`, the value is replaced by
 * `{ truncated: true, originalChars, preview }` (preview = the first `maxChars / 4` characters).
 * Never throws.
 */
export function toJsonSafe(value: unknown, maxChars = MAX_VALUE_CHARS): unknown {
  try {
    const safe = normalise(value, new WeakSet(), 0);
    if (safe === undefined) return undefined;
    const json = JSON.stringify(safe);
    if (json !== undefined && json.length > maxChars) {
      return {
        truncated: true,
        originalChars: json.length,
        preview: json.slice(0, Math.floor(maxChars / 4)),
      };
    }
    return safe;
  } catch {
    return '[Unserialisable]';
  }
}

/** {@link toJsonSafe} for a JSON object field (e.g. `arguments`): a non-object becomes `{ value }`. */
export function toJsonObject(value: unknown, maxChars = MAX_VALUE_CHARS): JsonObject | undefined {
  if (value === undefined) return undefined;
  const safe = toJsonSafe(value, maxChars);
  if (safe !== null && typeof safe === 'object' && !Array.isArray(safe)) return safe as JsonObject;
  return { value: safe };
}

/** Cuts `s` to at most `max` characters (`undefined` stays `undefined`). */
export function truncate(s: string | undefined, max: number): string | undefined {
  if (s === undefined) return undefined;
  const str = typeof s === 'string' ? s : String(s);
  return str.length <= max ? str : str.slice(0, max);
}

function normalise(v: unknown, seen: WeakSet<object>, depth: number): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'undefined' || typeof v === 'symbol') return undefined;
  if (typeof v === 'function') return `[Function ${v.name || 'anonymous'}]`;
  if (depth >= MAX_DEPTH) return '[Depth]';
  const obj = v as object;
  if (seen.has(obj)) return '[Circular]';
  seen.add(obj);
  try {
    if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString();
    if (obj instanceof Error || Object.prototype.toString.call(obj) === '[object Error]') {
      const err = obj as Error;
      return { name: err.name, message: err.message };
    }
    if (Array.isArray(obj)) return obj.map((x) => normalise(x, seen, depth + 1) ?? null);
    if (obj instanceof Map) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of obj) out[String(k)] = normalise(x, seen, depth + 1);
      return out;
    }
    if (obj instanceof Set) return [...obj].map((x) => normalise(x, seen, depth + 1) ?? null);
    if (ArrayBuffer.isView(obj)) return `[${obj.constructor.name} ${obj.byteLength} bytes]`;
    const toJSON = (obj as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return normalise(toJSON.call(obj), seen, depth + 1);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(obj)) {
      const n = normalise(x, seen, depth + 1);
      if (n !== undefined) out[k] = n;
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}
