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

/**
 * Builds a detector of instructions aimed at the model from `rules` (default: the shipped file).
 * The detector is pure and bounded: it reads at most `maxScanChars` characters of a text, once per
 * rule. Throws a `SyntaxError` when a pattern does not compile.
 */
export function instructionDetector(
  rules: InstructionRules = INSTRUCTION_RULES,
): (text: string) => InstructionFinding {
  const compiled = rules.rules.map((r) => ({
    id: r.id,
    weight: r.weight,
    re: new RegExp(r.pattern, `${r.flags.includes('i') ? 'i' : ''}u`),
  }));
  return (text) => {
    const scanned = text.normalize('NFKC').slice(0, rules.maxScanChars);
    let score = 0;
    const matched: string[] = [];
    for (const r of compiled) {
      if (!r.re.test(scanned)) continue;
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
 * TypeScript side, not part of the contract vectors. Throws a `SyntaxError` when a pattern does
 * not compile.
 */
export function instructionMatcher(
  rules: InstructionRules = INSTRUCTION_RULES,
): (text: string) => InstructionMatch[] {
  const compiled = rules.rules.map((r) => ({
    id: r.id,
    re: new RegExp(r.pattern, `g${r.flags.includes('i') ? 'i' : ''}u`),
  }));
  return (text) => {
    const scanned = text.normalize('NFKC').slice(0, rules.maxScanChars);
    const out: InstructionMatch[] = [];
    compiled.forEach(({ id, re }) => {
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
