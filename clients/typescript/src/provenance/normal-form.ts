import { PROVENANCE_BOUNDS } from './bounds';

/** Everything that is not a letter or a digit (Unicode categories L* and N*). */
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
/** A plain decimal number written as a string (ASCII digits), once trimmed. */
const NUMBER_LIKE = /^[+-]?[0-9]{1,15}(\.[0-9]{1,15})?$/;
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * The normal form of docs/provenance.md "Normal form": Unicode NFKC, lower case, then only the
 * letters and digits kept. `"US13 3000\n0000 1212"` → `"us13300000001212"`.
 */
export function normalize(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(NOT_LETTER_OR_DIGIT, '');
}

/** Length of `s` in Unicode code points (the spec's "characters"). */
export function charLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/** The first `max` code points of `s`. */
export function sliceChars(s: string, max: number): string {
  if (s.length <= max) return s;
  if (!SURROGATE.test(s.slice(0, max))) return s.slice(0, max);
  let out = '';
  let n = 0;
  for (const c of s) {
    if (n >= max) break;
    out += c;
    n += 1;
  }
  return out;
}

/**
 * The shortest decimal form of a number, without exponent (`100`, `12.5`, `-3`, `0.00001`), or
 * `null` for numbers that are neither leaves nor source text: not finite, `|x| ≥ 1e15` or
 * `0 < |x| < 1e-6` (their written forms differ between languages).
 */
export function numberText(x: number): string | null {
  if (!Number.isFinite(x)) return null;
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a < 1e-6 || a >= 1e15) return null;
  // JavaScript writes every number in [1e-6, 1e21) without exponent, shortest round-trip digits.
  return String(x);
}

/**
 * The text a leaf is matched by (docs/provenance.md "Normal form"): a number's decimal form; a
 * string that is a plain decimal number once trimmed, rewritten the same way (`"1250.50"` →
 * `"1250.5"`); any other string, its first {@link PROVENANCE_BOUNDS.MAX_STRING_LEAF_CHARS}
 * characters. `null` when the value is not a leaf.
 */
export function leafText(value: unknown): string | null {
  if (typeof value === 'string') {
    const t = value.trim();
    if (NUMBER_LIKE.test(t)) return numberText(Number(t));
    return sliceChars(value, PROVENANCE_BOUNDS.MAX_STRING_LEAF_CHARS);
  }
  if (typeof value === 'number') return numberText(value);
  return null;
}
