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
