import { z } from 'zod';

/**
 * The kinds of cause a model evaluator may name (docs/intelligence.md "The model evaluator"). They
 * are the failure classes found when the replayed tau-bench failures were read by hand: a right kind
 * of action with another value, an action the rules forbid, part of the request done, nothing done,
 * an action nobody asked for, a claim the record contradicts.
 */
export const EVALUATOR_CAUSE_KINDS = [
  'wrong_value',
  'forbidden_action',
  'incomplete',
  'not_done',
  'unrequested_action',
  'false_claim',
  'other',
] as const;
export type EvaluatorCauseKind = (typeof EVALUATOR_CAUSE_KINDS)[number];

/**
 * What the model must answer (OpenAI structured output, strict JSON schema): a verdict on the
 * session, one sentence of why, and for a failure each cause with the transcript entries that show
 * it. Entries are the `[n]` numbers of the transcript, mapped back to event ids by the evaluator.
 */
export const EvaluationReply = z.object({
  verdict: z
    .enum(['achieved', 'failed', 'unclear'])
    .describe(
      'achieved: the agent did what the user asked, within its rules; failed: it did not; unclear: the transcript does not say.',
    ),
  reason: z.string().describe('One sentence: why this verdict. Plain text.'),
  causes: z
    .array(
      z.object({
        kind: z.enum(EVALUATOR_CAUSE_KINDS),
        explanation: z
          .string()
          .describe('1 or 2 sentences: what went wrong, naming the objects and values concerned.'),
        entries: z
          .array(z.number().int().min(1))
          .describe('The [n] numbers of the transcript entries that show this cause, most telling first.'),
      }),
    )
    .describe('Each cause of the failure, most important first; empty unless the verdict is failed.'),
});
export type EvaluationReply = z.infer<typeof EvaluationReply>;
