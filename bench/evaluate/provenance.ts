import { nameBasedUuidV7, type ProvenanceInput } from '@agent-warden/contracts';
import type { rng, ToolCall } from './policies';

/** Tools whose output a realistic run has read before a guarded call (origins of tainted leaves). */
const READERS = ['read_file', 'get_webpage', 'read_inbox', 'search_files', 'get_transactions'];

/**
 * A realistic `provenance` for one guarded call (docs/provenance.md "On the wire"): 3–4 argument
 * entries named after the call's own top-level argument keys (then `extra.<k>`), each with one
 * tool source when it came from tool output, and a session part that has seen 0–2 instructed
 * tool results. Drawn from `r`, so every run sends the same bodies. What a client sends for a
 * typical call, so the evaluate benchmark measures its validation, recording and publishing.
 */
export function provenanceFor(c: ToolCall, r: ReturnType<typeof rng>): ProvenanceInput {
  const keys = Object.keys(c.args);
  const n = 3 + r.int(2);
  const callId = (k: number) => nameBasedUuidV7(`bench-call\n${r.int(1_000_000)}\n${k}`);
  const args = Array.from({ length: n }, (_, k) => {
    const origin = r.pick(['user', 'tool', 'tool', 'both', 'none'] as const);
    const fromTool = origin === 'tool' || origin === 'both';
    const instructed = fromTool && r.next() < 0.2;
    return {
      path: keys[k] || `extra.${k}`,
      origin,
      tainted: origin === 'tool',
      instructed: origin === 'tool' && instructed,
      sources: fromTool
        ? [{ toolName: r.pick(READERS), toolCallId: callId(k), instructions: instructed }]
        : [],
    };
  });
  const seen = r.int(3);
  return {
    arguments: args,
    session: {
      untrustedInstructions: seen,
      ...(seen > 0
        ? {
            lastInstruction: {
              toolName: r.pick(READERS),
              toolCallId: callId(99),
              rules: ['override-earlier-instructions', 'tool-call-imperative'],
            },
          }
        : {}),
    },
    truncated: false,
  };
}
