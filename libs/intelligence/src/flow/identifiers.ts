/**
 * Identifiers a data flow is traced by: IBANs, email addresses and URLs (web addresses with a
 * scheme, a `www.` prefix, or a bare domain under a common top-level domain). Pure.
 */

/** What kind of identifier a value is. */
export type IdentifierKind = 'iban' | 'email' | 'url';

/** One identifier found in a text: `value` as written, `key` normalised for comparison. */
export interface Identifier {
  kind: IdentifierKind;
  value: string;
  /** Lower-cased; URLs without scheme, `www.` and trailing slash. */
  key: string;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** ISO 13616 shape: country, check digits, 11–30 alphanumerics, at least 8 digits in all. */
const IBAN = /\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b/g;
const URL_WITH_SCHEME = /\bhttps?:\/\/[^\s'"<>()[\]{}`,]+/gi;
const WWW = /\bwww\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:\/[^\s'"<>()[\]{}`,]*)?/gi;
const BARE_DOMAIN =
  /\b[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:com|org|net|io|co|ai|dev|info|biz|xyz|me|app|gov|edu)\b(?:\/[^\s'"<>()[\]{}`,]*)?/gi;
const TRAILING = /[.,;:!?]+$/;

/** The comparison key of an identifier. */
export function identifierKey(kind: IdentifierKind, value: string): string {
  const v = value.toLowerCase();
  if (kind !== 'url') return v;
  return v
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/+$/, '');
}

/** Every IBAN, email address and URL in `text`, in order of appearance, without repeats (by key). */
export function findIdentifiers(text: string): Identifier[] {
  const found: { at: number; id: Identifier }[] = [];
  const seen = new Set<string>();
  const add = (kind: IdentifierKind, raw: string, at: number) => {
    const value = raw.replace(TRAILING, '');
    if (value.length < 4) return;
    const key = identifierKey(kind, value);
    if (seen.has(`${kind}:${key}`)) return;
    seen.add(`${kind}:${key}`);
    found.push({ at, id: { kind, value, key } });
  };
  // Emails first, then blank them out so their domains are not read again as URLs.
  let rest = text;
  for (const m of text.matchAll(EMAIL)) {
    add('email', m[0], m.index);
    rest = rest.slice(0, m.index) + ' '.repeat(m[0].length) + rest.slice(m.index + m[0].length);
  }
  for (const m of rest.matchAll(IBAN)) {
    if ((m[0].match(/\d/g)?.length ?? 0) >= 8) add('iban', m[0], m.index);
  }
  const urlSpans: [number, number][] = [];
  for (const re of [URL_WITH_SCHEME, WWW, BARE_DOMAIN]) {
    for (const m of rest.matchAll(re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (urlSpans.some(([s, e]) => start < e && end > s)) continue;
      urlSpans.push([start, end]);
      add('url', m[0], start);
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.id);
}

/** Text of any JSON value, for searching identifiers in results and arguments. */
export function textOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** True when the identifier (by key) occurs in `text`. */
export function mentions(text: string, id: Identifier): boolean {
  const lower = text.toLowerCase();
  if (lower.includes(id.key)) return true;
  return findIdentifiers(text).some((x) => x.kind === id.kind && x.key === id.key);
}
