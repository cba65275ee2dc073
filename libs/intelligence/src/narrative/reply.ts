import { z } from 'zod';

const nonBlank = (s: string) => s.trim().length > 0;

/**
 * What the model must answer (OpenAI structured output, strict JSON schema). Only texts and the
 * event ids they cite: the figures, evidence lists, kinds and policies are not in it, so the model
 * cannot change them. Refinements (non-blank texts) are checked by zod on the reply and are not part
 * of the JSON schema sent (strict mode accepts a narrow subset of JSON Schema).
 */
export const NarrativeReply = z.object({
  summary: z
    .string()
    .describe(
      '2 to 5 sentences for the person reviewing the session: what the agent was asked, what it did, the outcome, and what needs attention. Plain text, no event ids.',
    )
    .refine(nonBlank, 'summary is blank'),
  moments: z
    .array(
      z.object({
        index: z
          .number()
          .int()
          .min(0)
          .describe('The `index` of the moment in facts.moments that this text narrates.'),
        text: z
          .string()
          .describe(
            '1 or 2 sentences: what happened at this moment and why it matters. Plain text, no event ids.',
          ),
        eventIds: z
          .array(z.string())
          .describe(
            'Ids of the events this text is about, copied from the facts (the moment or an action item).',
          ),
      }),
    )
    .describe('One entry per moment you narrate, in story order.'),
});
export type NarrativeReply = z.infer<typeof NarrativeReply>;
