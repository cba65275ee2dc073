import { PROVENANCE_BOUNDS } from './bounds';
import { numberText, sliceChars } from './normal-form';

const { MAX_SOURCE_CHARS, MAX_SOURCE_DEPTH } = PROVENANCE_BOUNDS;

/**
 * The text of a source (docs/provenance.md "Sources"): a string as is; a number in its decimal
 * form; an object or array, its keys and scalar values in document order joined by `\n` (depth ≤
 * 16); booleans, `null` and `undefined` add nothing. Keeps the first
 * {@link PROVENANCE_BOUNDS.MAX_SOURCE_CHARS} characters and stops walking once it has them, so the
 * cost is bounded whatever the value. Values that are not JSON are read as their JSON form would
 * be (`toJSON()`, `Map` entries, `Set` items, `bigint` digits); cycles are read once.
 */
export function sourceText(value: unknown): string {
  if (typeof value === 'string') return sliceChars(value, MAX_SOURCE_CHARS);
  const parts: string[] = [];
  let size = 0;
  const seen = new Set<object>();
  const add = (s: string): boolean => {
    if (s === '') return true;
    parts.push(s);
    size += s.length + 1;
    return size <= MAX_SOURCE_CHARS;
  };
  // Returns false once enough text was collected.
  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v === 'string') return add(v);
    if (typeof v === 'number') return add(numberText(v) ?? '');
    if (typeof v === 'bigint') return add(numberText(Number(v)) ?? '');
    if (v === null || typeof v !== 'object') return true;
    if (depth >= MAX_SOURCE_DEPTH || seen.has(v)) return true;
    seen.add(v);
    const withJson = v as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return walk(safeToJson(withJson), depth);
    if (Array.isArray(v) || v instanceof Set) {
      for (const item of v) if (!walk(item, depth + 1)) return false;
      return true;
    }
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
    for (const [k, item] of entries) {
      if (!add(String(k))) return false;
      if (!walk(item, depth + 1)) return false;
    }
    return true;
  };
  walk(value, 0);
  return sliceChars(parts.join('\n'), MAX_SOURCE_CHARS);
}

function safeToJson(v: { toJSON?: () => unknown }): unknown {
  try {
    return v.toJSON?.();
  } catch {
    return undefined;
  }
}
