/** Longest regex pattern a policy may hold (characters). */
export const MAX_REGEX_LENGTH = 1000;

/**
 * Cheap, linear check for the classic catastrophic-backtracking shape: an unbounded quantifier
 * (`*`, `+`, `{n,}`) applied to a group that itself contains an unbounded quantifier, e.g.
 * `(a+)+`, `(\w*)*`, `(?:x+y?)+`, `(a+){2,}`. Escapes and character classes are skipped.
 * It does not find every super-linear pattern (overlapping alternations such as `(a|a)*`, or
 * polynomial ones such as `.*.*.*x` still pass); it rejects the shape that hangs a process on
 * short inputs. Returns a message, or `undefined` when the pattern passes.
 */
export function nestedQuantifierProblem(pattern: string): string | undefined {
  // One frame per open group: whether its contents hold an unbounded quantifier.
  const stack: boolean[] = [false];
  let i = 0;
  const n = pattern.length;
  /** Reads the quantifier at `at` (if any); returns [length, unbounded]. */
  const quantifier = (at: number): [number, boolean] => {
    const c = pattern[at];
    if (c === '*' || c === '+') return [1, true];
    if (c === '?') return [1, false];
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at, at + 24));
      if (m) return [m[0].length, m[2] !== undefined && m[3] === ''];
    }
    return [0, false];
  };
  const markUnbounded = () => {
    stack[stack.length - 1] = true;
  };
  while (i < n) {
    const c = pattern[i];
    if (c === '\\') {
      i += 2;
    } else if (c === '[') {
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++;
      while (i < n && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '(') {
      stack.push(false);
      i++;
      continue;
    } else if (c === ')') {
      const inner = stack.length > 1 ? (stack.pop() as boolean) : false;
      i++;
      const [len, unbounded] = quantifier(i);
      if (len > 0) {
        if (unbounded && inner) {
          return `nested quantifier near offset ${i}: a repeated group that itself repeats can backtrack catastrophically; rewrite it (e.g. "(a+)+" as "a+")`;
        }
        if (unbounded || inner) markUnbounded();
        i += len;
        if (pattern[i] === '?' || pattern[i] === '+') i++; // lazy / possessive-looking suffix
      } else if (inner) {
        markUnbounded();
      }
      continue;
    } else {
      i++;
    }
    // After an atom (escape, class or plain character): its quantifier, if any.
    const [len, unbounded] = quantifier(i);
    if (len > 0) {
      if (unbounded) markUnbounded();
      i += len;
      if (pattern[i] === '?') i++;
    }
  }
  return undefined;
}
