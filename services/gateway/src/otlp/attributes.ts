import { cleanText } from '@agent-warden/contracts';
import type { OtlpAnyValue, OtlpKeyValue } from './proto';

/** A span's or resource's attributes as plain values: key → string | number | boolean | array | object. */
export type Attributes = Record<string, unknown>;

const MAX_VALUE_DEPTH = 32;

/**
 * An OTLP `AnyValue` as a JSON value: `intValue` as a number when it is a safe integer (else the
 * decimal string), `bytesValue` as base64, `kvlistValue` as an object, strings cleaned of what
 * PostgreSQL cannot hold (U+0000, lone surrogates → U+FFFD; docs/decisions.md "What storage
 * cannot hold"). Values nested deeper than 32 levels become null.
 */
export function anyValue(v: OtlpAnyValue | undefined, depth = 0): unknown {
  if (!v || depth > MAX_VALUE_DEPTH) return null;
  if (v.stringValue !== undefined) return cleanText(v.stringValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if (v.doubleValue !== undefined)
    return Number.isFinite(v.doubleValue) ? v.doubleValue : String(v.doubleValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map((x) => anyValue(x, depth + 1));
  if (v.kvlistValue) return attributesOf(v.kvlistValue.values ?? [], depth + 1);
  if (v.bytesValue) return Buffer.from(v.bytesValue).toString('base64');
  return null;
}

/** OTLP key-values as an object (a later duplicate key wins, keys cleaned like values). */
export function attributesOf(kvs: OtlpKeyValue[], depth = 0): Attributes {
  const out: Attributes = {};
  for (const kv of kvs) {
    Object.defineProperty(out, cleanText(kv.key), {
      value: anyValue(kv.value, depth),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return out;
}

/** The attribute as a non-empty string (numbers and booleans as text), else undefined. */
export function str(a: Attributes, key: string): string | undefined {
  const v = a[key];
  if (typeof v === 'string') return v.length > 0 ? v : undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** The attribute as a non-negative integer (a numeric string too), else undefined. */
export function int(a: Attributes, key: string): number | undefined {
  const v = a[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The attribute as a finite number, else undefined. */
export function num(a: Attributes, key: string): number | undefined {
  const v = a[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** The attribute as a list of strings (a single string as a one-item list), else undefined. */
export function strings(a: Attributes, key: string): string[] | undefined {
  const v = a[key];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return undefined;
}

/**
 * A text attribute that may hold JSON (tool arguments and results, `input.value`): the parsed
 * value when it parses, else the text itself.
 */
export function jsonOrText(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  const t = text.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** `s` cut to `max` UTF-16 units (one character less and "…" when cut; a surrogate pair cut in half becomes U+FFFD). */
export function clip(s: string | undefined, max: number): string | undefined {
  if (s === undefined) return undefined;
  return s.length <= max ? s : cleanText(`${s.slice(0, max - 1)}…`);
}
