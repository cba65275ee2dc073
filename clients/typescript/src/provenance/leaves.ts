import { PROVENANCE_BOUNDS } from './bounds';
import { charLength, leafText, normalize } from './normal-form';

const { MAX_LEAVES, MAX_DEPTH, MIN_MATCH_CHARS, MAX_SEGMENT_SHORT_CHARS, MIN_TOKEN_CHARS } =
  PROVENANCE_BOUNDS;
const { MAX_TOKENS_PER_LEAF } = PROVENANCE_BOUNDS;

/** One argument leaf: its dotted path (`recipients.0`) and value (a string or a number). */
export interface ArgumentLeaf {
  path: string;
  value: string | number;
}

/**
 * The leaves of a call's arguments (docs/provenance.md "Argument leaves"): walked depth-first in
 * key order, strings and numbers (not booleans, `null`, or numbers outside the written range),
 * container depth ≤ {@link PROVENANCE_BOUNDS.MAX_DEPTH}, at most
 * {@link PROVENANCE_BOUNDS.MAX_LEAVES} (`truncated` when more were found).
 */
export function argumentLeaves(args: unknown): { leaves: ArgumentLeaf[]; truncated: boolean } {
  const leaves: ArgumentLeaf[] = [];
  let truncated = false;
  const walk = (v: unknown, path: string, depth: number): void => {
    if (typeof v === 'string' || typeof v === 'number') {
      if (typeof v === 'number' && leafText(v) === null) return;
      if (leaves.length >= MAX_LEAVES) {
        truncated = true;
        return;
      }
      leaves.push({ path, value: v });
      return;
    }
    if (v === null || typeof v !== 'object' || depth >= MAX_DEPTH) return;
    const prefix = path === '' ? '' : `${path}.`;
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${prefix}${i}`, depth + 1));
    else for (const [k, item] of Object.entries(v)) walk(item, `${prefix}${k}`, depth + 1);
  };
  walk(args, '', 0);
  return { leaves, truncated };
}

/** Whitespace a long leaf is split on: the characters Python's `str.split()` splits on. */
// eslint-disable-next-line no-control-regex -- \x1c-\x1f are separators to Python's str.split()
const WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
/** Stripped from both ends of a token. */
const EDGE = /^[<>()[\]{}"'`,;:.!?]+|[<>()[\]{}"'`,;:.!?]+$/g;
const IDENTIFIER_MARK = /[0-9@/]/;

/**
 * The segments a leaf is matched by (docs/provenance.md "Segments"), as normal forms: none when
 * the leaf's normal form is shorter than {@link PROVENANCE_BOUNDS.MIN_MATCH_CHARS}; the whole
 * leaf when it has at most {@link PROVENANCE_BOUNDS.MAX_SEGMENT_SHORT_CHARS} characters; else its
 * identifier-like tokens (≤ 16, first first, duplicates once) then the whole leaf.
 */
export function segmentsOf(text: string | null): string[] {
  if (text === null) return [];
  const whole = normalize(text);
  const length = charLength(whole);
  if (length < MIN_MATCH_CHARS) return [];
  if (length <= MAX_SEGMENT_SHORT_CHARS) return [whole];
  const out: string[] = [];
  let tokens = 0;
  for (const raw of text.split(WHITESPACE)) {
    const token = raw.replace(EDGE, '');
    if (token === '') continue;
    const norm = normalize(token);
    if (charLength(norm) < MIN_TOKEN_CHARS) continue;
    if (!IDENTIFIER_MARK.test(token) && !token.includes('.')) continue;
    if (!out.includes(norm)) out.push(norm);
    tokens += 1;
    if (tokens >= MAX_TOKENS_PER_LEAF) break;
  }
  if (!out.includes(whole)) out.push(whole);
  return out;
}
