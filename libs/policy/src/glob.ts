/** A glob compiled once: a string test plus whether the pattern had any wildcard. */
export interface CompiledGlob {
  test(s: string): boolean;
  /** The literal the pattern equals when it has no wildcard (after unescaping), else `undefined`. */
  literal: string | undefined;
}

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/-]/g;

function escapeRegex(s: string): string {
  return s.replace(REGEX_SPECIAL, '\\$&');
}

/**
 * Translates a glob into an anchored, case-sensitive RegExp source. `*` any run of characters
 * (including `/` and newlines), `?` exactly one character, `[abc]` / `[a-z]` a class, `[!abc]` or
 * `[^abc]` a negated class, `\x` the literal `x`. Returns the source and the literal text when
 * the pattern has no wildcard. Throws on an unclosed `[` or a trailing `\`.
 */
export function globToRegexSource(glob: string): { source: string; literal: string | undefined } {
  let source = '';
  let literal = '';
  let wild = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '\\') {
      if (i + 1 >= glob.length) throw new Error('glob ends with an unfinished escape "\\"');
      const next = glob[++i] as string;
      source += escapeRegex(next);
      literal += next;
    } else if (c === '*') {
      // Collapse runs of `*`: they mean the same and would only add backtracking.
      while (glob[i + 1] === '*') i++;
      source += '[\\s\\S]*';
      wild = true;
    } else if (c === '?') {
      source += '[\\s\\S]';
      wild = true;
    } else if (c === '[') {
      let j = i + 1;
      let negate = false;
      if (glob[j] === '!' || glob[j] === '^') {
        negate = true;
        j++;
      }
      let body = '';
      // A `]` right after `[` (or `[!`) is a literal member, as in POSIX globs.
      if (glob[j] === ']') {
        body += '\\]';
        j++;
      }
      while (j < glob.length && glob[j] !== ']') {
        const m = glob[j] as string;
        if (m === '\\' && j + 1 < glob.length) {
          body += escapeRegex(glob[j + 1] as string);
          j += 2;
        } else {
          // `-` between two members stays a range; everything else is escaped.
          body += m === '-' ? '-' : escapeRegex(m);
          j++;
        }
      }
      if (j >= glob.length) throw new Error(`glob has an unclosed "[" at offset ${i}`);
      source += `[${negate ? '^' : ''}${body}]`;
      wild = true;
      i = j;
    } else {
      source += escapeRegex(c);
      literal += c;
    }
  }
  return { source: `^${source}$`, literal: wild ? undefined : literal };
}

/**
 * Compiles a glob once. Simple shapes get a string fast path (`abc` → equality, `abc*` →
 * `startsWith`, `*abc` → `endsWith`); everything else is one anchored RegExp. Throws like
 * {@link globToRegexSource}, or with the RegExp error for a bad class range such as `[z-a]`.
 */
export function compileGlob(glob: string): CompiledGlob {
  const { source, literal } = globToRegexSource(glob);
  if (literal !== undefined) return { literal, test: (s) => s === literal };
  const plain = (t: string) => !/[\\*?[]/.test(t);
  if (glob.length > 1 && glob.endsWith('*') && !glob.endsWith('\\*') && plain(glob.slice(0, -1))) {
    const prefix = glob.slice(0, -1);
    return { literal: undefined, test: (s) => s.startsWith(prefix) };
  }
  if (glob.length > 1 && glob.startsWith('*') && plain(glob.slice(1))) {
    const suffix = glob.slice(1);
    return { literal: undefined, test: (s) => s.endsWith(suffix) };
  }
  const re = new RegExp(source);
  return { literal: undefined, test: (s) => re.test(s) };
}
