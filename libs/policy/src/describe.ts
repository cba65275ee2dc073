/** Longest literal shown in a reason before it is cut with an ellipsis (characters). */
const MAX_TEXT = 60;
/** Most list members shown in a reason for `in`. */
const MAX_LIST = 3;

/** `s`, cut to at most 60 characters with a trailing `…` when longer. */
export function cut(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}

/** A condition value as shown in a reason: strings quoted (and cut), numbers and booleans bare. */
export function showValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(cut(v));
  return String(v);
}

/** A list shown short: `["a", "b", "c", … +4 more]`. */
export function showList(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LIST).map(showValue);
  if (values.length > MAX_LIST) shown.push(`… +${values.length - MAX_LIST} more`);
  return `[${shown.join(', ')}]`;
}

/** A regex shown as a literal `/…/` (with `/` escaped), cut when long. */
export function showRegex(pattern: string): string {
  return `/${cut(pattern).replace(/\\?\//g, '\\/')}/`;
}
