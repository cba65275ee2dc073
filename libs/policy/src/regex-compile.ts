/**
 * Compiles a policy's `regex` pattern into a RegExp.
 *
 * A pattern that is one case-insensitive modifier group, `(?i:…)` (ECMAScript 2025 RegExp
 * modifiers), is compiled as its body with the `i` flag: the same language, without V8's modifier
 * path, which has given wrong answers for such groups (nodejs/node#60030; in our CI a pack's
 * `(?i:…transfer_?(money|funds)…)` once missed `transferFunds` in a run where it had matched
 * before). Every other pattern is compiled unchanged, with no flags (docs/guardrails.md, `regex`).
 *
 * @param pattern A pattern that {@link RegExp} accepts (the validator checked it).
 * @returns The RegExp to `test()` values with; throws `SyntaxError` for a pattern RegExp refuses.
 */
export function compilePattern(pattern: string): RegExp {
  const body = caseInsensitiveBody(pattern);
  return body === undefined ? new RegExp(pattern) : new RegExp(body, 'i');
}

/**
 * The body of a pattern that is exactly one `(?i:…)` group (the group opened at index 0 closes at
 * the last character), else `undefined`. Escapes and character classes are skipped, so `\)` and
 * `[)]` do not close a group.
 */
export function caseInsensitiveBody(pattern: string): string | undefined {
  if (!pattern.startsWith('(?i:') || !pattern.endsWith(')')) return undefined;
  let depth = 1;
  let i = 4;
  const n = pattern.length;
  while (i < n) {
    const c = pattern[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '[') {
      // A JavaScript class ends at the first unescaped `]` (`[]` is the empty class).
      i++;
      while (i < n && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return i === n - 1 ? pattern.slice(4, -1) : undefined;
    }
    i++;
  }
  return undefined;
}
