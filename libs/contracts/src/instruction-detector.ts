import rulesFile from '../provenance/instruction-rules.json';

/** One rule of `libs/contracts/provenance/instruction-rules.json`. */
export interface InstructionRule {
  /** Stable id, reported in `InstructionSighting.rules`. */
  id: string;
  weight: number;
  /** A regular expression in the subset JavaScript (flag `u`) and Python `re` read alike. */
  pattern: string;
  /** `""` or `"i"`. */
  flags: string;
  /**
   * Prefilter: lowercase words or phrases (a-z and single spaces), at least one of which occurs in
   * the {@link letterForm} of every text the pattern matches; the pattern runs only when one does.
   * Absent: the pattern always runs.
   */
  anyOf?: string[];
  description: string;
}

/** The rules file's shape. */
export interface InstructionRules {
  version: number;
  /** A text carries instructions when its matched rules' weights sum to at least this. */
  threshold: number;
  /** Characters of a text that are scanned (from its start, after NFKC). */
  maxScanChars: number;
  rules: InstructionRule[];
}

/** What the detector found in one text. */
export interface InstructionFinding {
  /** True when the matched weights reach the threshold: the text tells the model what to do. */
  instructions: boolean;
  /** Sum of the weights of the matched rules. */
  score: number;
  /** Ids of the matched rules, in the rules file's order. */
  rules: string[];
}

/** The detector's rules as shipped (docs/provenance.md "Instructions aimed at the model"). */
export const INSTRUCTION_RULES: InstructionRules = rulesFile as InstructionRules;

/** What an `anyOf` entry may hold: a-z and single spaces (a space at an end is a word boundary). */
const ANY_OF_ENTRY = /^ ?[a-z]+(?: [a-z]+)* ?$/;

/**
 * U+0130 and U+0131, which Python's `re.IGNORECASE` (not JavaScript's `iu`) matches to `i` even
 * after NFKC: a text holding one is scanned by every rule in both engines, without prefilter.
 */
const I_ALIKES = /[\u0130\u0131]/;

/**
 * The text an `anyOf` prefilter reads (docs/provenance.md "Instructions aimed at the model"):
 * `scanned` lowercased with a space at both ends, every run of characters other than `a`-`z` then
 * made one space. `"Hi AI-agent, DON'T"` gives `" hi ai agent don t "`. Equal to the Python engine's
 * `letter_form` for every text without U+0130 or U+0131 (which are never prefiltered).
 */
export function letterForm(scanned: string): string {
  return ` ${scanned.toLowerCase()} `.replace(/[^a-z]+/g, ' ');
}

interface CompiledRule {
  id: string;
  weight: number;
  re: RegExp;
  /** The rule's `anyOf` entries as one alternation (one scan of the letter form, not one per entry). */
  anyOf: RegExp | undefined;
}

/** Compiles `rules`' patterns with `flags` added; throws a `SyntaxError` or a `TypeError` (bad `anyOf`). */
function compile(rules: InstructionRules, flags: string): CompiledRule[] {
  return rules.rules.map((r) => {
    if (r.anyOf !== undefined && (r.anyOf.length === 0 || !r.anyOf.every((e) => ANY_OF_ENTRY.test(e)))) {
      throw new TypeError(`instruction rule ${r.id}: anyOf must be a non-empty list of a-z words`);
    }
    return {
      id: r.id,
      weight: r.weight,
      re: new RegExp(r.pattern, `${flags}${r.flags.includes('i') ? 'i' : ''}u`),
      anyOf: r.anyOf && new RegExp(r.anyOf.join('|')),
    };
  });
}

/**
 * The scanned part of `text` (its first `maxScanChars` characters after NFKC) and a test of
 * whether a rule may match it: false only when the rule has `anyOf` and none of its entries occurs
 * in the letter form.
 */
function scan(
  text: string,
  maxScanChars: number,
): { scanned: string; mayMatch: (r: CompiledRule) => boolean } {
  const scanned = text.normalize('NFKC').slice(0, maxScanChars);
  if (I_ALIKES.test(scanned)) return { scanned, mayMatch: () => true };
  const letters = letterForm(scanned);
  return { scanned, mayMatch: (r) => r.anyOf === undefined || r.anyOf.test(letters) };
}

/**
 * Builds a detector of instructions aimed at the model from `rules` (default: the shipped file).
 * The detector is pure and bounded: it reads at most `maxScanChars` characters of a text, once per
 * rule; a rule with `anyOf` runs its pattern only when one of those entries occurs in the text's
 * {@link letterForm}. Throws a `SyntaxError` when a pattern does not compile, a `TypeError` when an
 * `anyOf` is empty or holds anything but a-z words and single spaces.
 */
export function instructionDetector(
  rules: InstructionRules = INSTRUCTION_RULES,
): (text: string) => InstructionFinding {
  const compiled = compile(rules, '');
  return (text) => {
    const { scanned, mayMatch } = scan(text, rules.maxScanChars);
    let score = 0;
    const matched: string[] = [];
    for (const r of compiled) {
      if (!mayMatch(r) || !r.re.test(scanned)) continue;
      score += r.weight;
      matched.push(r.id);
    }
    return { instructions: score >= rules.threshold, score, rules: matched };
  };
}

/** {@link instructionDetector} over the shipped rules. */
export const detectInstructions: (text: string) => InstructionFinding = instructionDetector();

/** Where one rule matched in a text (see {@link instructionMatcher}). */
export interface InstructionMatch {
  /** Id of the rule that matched. */
  rule: string;
  /** Offset of the match's first UTF-16 code unit in `text.normalize('NFKC')`. */
  start: number;
  /** Offset just after the match's last code unit (exclusive). */
  end: number;
}

/** At most this many matches are reported per rule and text. */
export const MAX_MATCHES_PER_RULE = 32;

/**
 * Builds a function returning where the rules of `rules` (default: the shipped file) match in a
 * text, to locate the injected instructions inside a longer tool result (the runtime analyser
 * marks values that sit next to them). It reads the same characters as {@link instructionDetector}
 * (the first `maxScanChars` of the NFKC form) and reports every non-overlapping match of every
 * rule, at most {@link MAX_MATCHES_PER_RULE} per rule, sorted by `start` then rule order. The
 * offsets index `text.normalize('NFKC')`, which equals `text` for text already in NFKC (all ASCII
 * text is). It says nothing about the threshold: callers that only want the stretches of a text
 * that carries instructions check {@link instructionDetector} first. An engine helper of the
 * TypeScript side, not part of the contract vectors. It skips a rule whose `anyOf` prefilter
 * fails, as the detector does. Throws a `SyntaxError` when a pattern does not compile, a
 * `TypeError` when an `anyOf` is malformed.
 */
export function instructionMatcher(
  rules: InstructionRules = INSTRUCTION_RULES,
): (text: string) => InstructionMatch[] {
  const compiled = compile(rules, 'g');
  return (text) => {
    const { scanned, mayMatch } = scan(text, rules.maxScanChars);
    const out: InstructionMatch[] = [];
    compiled.forEach((r) => {
      if (!mayMatch(r)) return;
      const { id, re } = r;
      let n = 0;
      for (const m of scanned.matchAll(re)) {
        out.push({ rule: id, start: m.index, end: m.index + m[0].length });
        if (++n >= MAX_MATCHES_PER_RULE) break;
      }
    });
    const order = new Map(compiled.map((c, i) => [c.id, i]));
    return out.sort((a, b) => a.start - b.start || (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0));
  };
}

/** {@link instructionMatcher} over the shipped rules. */
export const findInstructionMatches: (text: string) => InstructionMatch[] = instructionMatcher();
