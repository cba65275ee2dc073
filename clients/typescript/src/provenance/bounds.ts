/**
 * The bounds of provenance tracking (docs/provenance.md "Bounds"). Lengths are in characters =
 * Unicode code points, as in the Python client.
 */
export const PROVENANCE_BOUNDS = {
  /** A leaf (segment) whose normal form is shorter than this is not reported. */
  MIN_MATCH_CHARS: 3,
  /** A leaf whose normal form has at most this many characters is one segment. */
  MAX_SEGMENT_SHORT_CHARS: 64,
  /** Identifier-like tokens of a long leaf need a normal form at least this long. */
  MIN_TOKEN_CHARS: 6,
  /** Argument leaves described per call (more: `truncated: true`). */
  MAX_LEAVES: 64,
  /** Deepest container level of the arguments walked. */
  MAX_DEPTH: 8,
  /** Characters of a string leaf read. */
  MAX_STRING_LEAF_CHARS: 4096,
  /** Tokens per long leaf (plus the whole leaf: 17 segments at most). */
  MAX_TOKENS_PER_LEAF: 16,
  /** Characters of a source's text kept. */
  MAX_SOURCE_CHARS: 65_536,
  /** Deepest container level of a source value read. */
  MAX_SOURCE_DEPTH: 16,
  /** Tool-source normal-form characters per store; oldest tool sources evicted first. */
  MAX_TOOL_CHARS: 1_048_576,
  /** Trusted normal-form characters per store; oldest trusted sources evicted first. */
  MAX_TRUSTED_CHARS: 262_144,
  /** Sources per store; past it the oldest tool source (else the oldest trusted one) is evicted. */
  MAX_SOURCES: 512,
  /** Run stores a client keeps at once (least recently used dropped). */
  MAX_RUNS: 64,
  /** Session-level stores a client keeps at once (least recently used dropped). */
  MAX_SESSIONS: 8,
  /** Tool sources named per leaf. */
  MAX_SOURCES_PER_LEAF: 3,
} as const;
