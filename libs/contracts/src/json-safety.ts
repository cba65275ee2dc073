/**
 * What PostgreSQL can hold, as one rule for every request (docs/decisions.md "What storage cannot
 * hold"): `text` and `jsonb` refuse U+0000 and UTF-16 lone surrogates, so both are replaced by
 * U+FFFD (the Unicode replacement character) in every string and every object key a request
 * carries — bodies, query parameters, JSON payloads at any depth. Nesting cannot be cleaned, so it
 * is bounded: a JSON payload field (`data`, `attributes`, `arguments`, `metadata`, …) nests at most
 * {@link MAX_JSON_DEPTH} levels, a whole request body (each event of a batch on its own) at most
 * {@link MAX_BODY_DEPTH}. Every walk here is iterative (an explicit stack), so a value nested
 * 100,000 levels deep is measured and cleaned without recursion; anything recursive
 * (`JSON.stringify`, zod's recursive schemas) may touch a value only after it passed the depth check.
 */

/** Most nesting levels of a JSON payload field; `{}` and `[]` are 1 level, a scalar 0. */
export const MAX_JSON_DEPTH = 64;

/** Most nesting levels of a whole request body, or of one event of a batch. */
export const MAX_BODY_DEPTH = 128;

/** Largest value of a PostgreSQL `integer` (int4) column, e.g. an event's `sequence`. */
export const INT4_MAX = 2_147_483_647;

/** The replacement of what storage cannot hold (U+FFFD). */
export const REPLACEMENT_CHARACTER = '\uFFFD';

/** U+0000, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one (UTF-16 code units). */
const UNSAFE_SOURCE =
  '\\u0000|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const UNSAFE_ONE = new RegExp(UNSAFE_SOURCE);
const UNSAFE_ALL = new RegExp(UNSAFE_SOURCE, 'g');

/** True when `s` holds U+0000 or a lone surrogate. */
export function needsCleaning(s: string): boolean {
  return UNSAFE_ONE.test(s);
}

/** `s` with U+0000 and lone surrogates replaced by U+FFFD; `s` itself when it has neither. */
export function cleanText(s: string): string {
  return UNSAFE_ONE.test(s) ? s.replace(UNSAFE_ALL, REPLACEMENT_CHARACTER) : s;
}

/** Where a walk found a value nested deeper than allowed: the path to the first container past the limit. */
export type JsonPath = (string | number)[];

interface Frame {
  value: object;
  depth: number;
  parent: Frame | undefined;
  key: string | number | undefined;
}

function pathOf(frame: Frame): JsonPath {
  const out: JsonPath = [];
  for (let f: Frame | undefined = frame; f && f.key !== undefined; f = f.parent) out.push(f.key);
  return out.reverse();
}

/** Sets an own data property, also for keys such as `__proto__` that plain assignment would not store. */
function put(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Walks a parsed JSON value without recursion. With `clean`, replaces U+0000 and lone surrogates
 * by U+FFFD in every string value and object key, in place (an object whose keys change is rebuilt
 * with the same key order; `__proto__` / `constructor` keys stay own data properties). Returns the
 * (possibly new) root and, when some container is nested deeper than `maxDepth`, the path to the
 * first such container (the walk goes on, so everything is still cleaned).
 *
 * @param value a value from `JSON.parse` (objects, arrays, strings, numbers, booleans, null).
 * @param maxDepth most container levels allowed (`Infinity` to only clean).
 */
export function walkJson(
  value: unknown,
  maxDepth: number,
  clean: boolean,
): { value: unknown; tooDeepAt: JsonPath | undefined } {
  if (typeof value === 'string') return { value: clean ? cleanText(value) : value, tooDeepAt: undefined };
  if (value === null || typeof value !== 'object') return { value, tooDeepAt: undefined };
  let tooDeepAt: JsonPath | undefined;
  let root: object = value;
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > maxDepth && tooDeepAt === undefined) {
      tooDeepAt = pathOf(frame);
      if (!clean) break;
    }
    let node = frame.value;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string') {
          if (clean && needsCleaning(v)) node[i] = cleanText(v);
        } else if (v !== null && typeof v === 'object')
          stack.push({ value: v, depth: frame.depth + 1, parent: frame, key: i });
      }
      continue;
    }
    const keys = Object.keys(node);
    if (clean && keys.some(needsCleaning)) {
      // Rebuild with cleaned keys in the same order; a later key wins a clash, as in JSON.parse.
      const rebuilt = Object.create(Object.getPrototypeOf(node) as object | null) as Record<string, unknown>;
      for (const k of keys) put(rebuilt, cleanText(k), (node as Record<string, unknown>)[k]);
      if (frame.parent) put(frame.parent.value, frame.key!, rebuilt);
      else root = rebuilt;
      frame.value = rebuilt;
      node = rebuilt;
    }
    const obj = node as Record<string, unknown>;
    for (const k of Object.keys(obj)) {
      const v = obj[k];
      if (typeof v === 'string') {
        if (clean && needsCleaning(v)) put(obj, k, cleanText(v));
      } else if (v !== null && typeof v === 'object')
        stack.push({ value: v, depth: frame.depth + 1, parent: frame, key: k });
    }
  }
  return { value: root, tooDeepAt };
}

/** The path to the first container of `value` nested deeper than `maxDepth`, or undefined. Iterative. */
export function jsonTooDeepAt(value: unknown, maxDepth: number): JsonPath | undefined {
  return walkJson(value, maxDepth, false).tooDeepAt;
}

/** `value` with U+0000 and lone surrogates replaced by U+FFFD in every string and key (in place where possible). */
export function cleanJson<T>(value: T): T {
  return walkJson(value, Infinity, true).value as T;
}
