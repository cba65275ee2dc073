import { z } from 'zod';
import { ClientId } from './common';

/**
 * Where an argument leaf of a guarded call came from (docs/provenance.md "Origin of a leaf"):
 * `user` (the user's request or messages), `tool` (tool output only), `both`, or `none` (found in
 * no source: the model wrote it).
 */
export const ArgumentOrigin = z.enum(['user', 'tool', 'both', 'none']);
export type ArgumentOrigin = z.infer<typeof ArgumentOrigin>;

/** Most argument leaves one request describes (docs/provenance.md "Bounds"). */
export const MAX_PROVENANCE_ARGUMENTS = 64;
/** Most tool sources named per argument leaf. */
export const MAX_PROVENANCE_SOURCES = 3;

/** A tool result an argument value was found in. */
export const ProvenanceSource = z
  .object({
    /** Name of the tool whose output held the value. */
    toolName: z.string().min(1).max(200),
    /** Id of that tool call (its `agent.tool.completed` event carries the same id). */
    toolCallId: ClientId.optional(),
    /** True when that output carried instructions aimed at the model (docs/provenance.md). */
    instructions: z.boolean().default(false),
  })
  .meta({ id: 'ProvenanceSource' });
export type ProvenanceSource = z.infer<typeof ProvenanceSource>;

/** The origin of one argument leaf, named by its dotted path (`recipient`, `recipients.0`). */
export const ArgumentProvenance = z
  .object({
    path: z.string().min(1).max(500),
    origin: ArgumentOrigin,
    /** Some part of the value came from tool output and not from the user. */
    tainted: z.boolean().default(false),
    /** Tainted, and one of its sources carried instructions aimed at the model. */
    instructed: z.boolean().default(false),
    /** Most recent first. */
    sources: z.array(ProvenanceSource).max(MAX_PROVENANCE_SOURCES).default([]),
  })
  .meta({ id: 'ArgumentProvenance' });
export type ArgumentProvenance = z.infer<typeof ArgumentProvenance>;

/** A tool result that carried instructions aimed at the model. */
export const InstructionSighting = z
  .object({
    toolName: z.string().min(1).max(200),
    toolCallId: ClientId.optional(),
    /** Ids of the detector rules that matched (`libs/contracts/provenance/instruction-rules.json`). */
    rules: z.array(z.string().max(100)).max(16).default([]),
  })
  .meta({ id: 'InstructionSighting' });
export type InstructionSighting = z.infer<typeof InstructionSighting>;

/**
 * `provenance` of `POST /v1/guardrails/evaluate`: the origin of each argument leaf and what the
 * session has seen, computed by the client before the call (docs/provenance.md "On the wire").
 */
export const Provenance = z
  .object({
    arguments: z.array(ArgumentProvenance).max(MAX_PROVENANCE_ARGUMENTS).default([]),
    session: z
      .object({
        /** Tool results of this session so far that carried instructions aimed at the model. */
        untrustedInstructions: z.number().int().min(0).max(2_147_483_647).default(0),
        /** The latest of them. */
        lastInstruction: InstructionSighting.optional(),
      })
      .default({ untrustedInstructions: 0 }),
    /** The client described only the first {@link MAX_PROVENANCE_ARGUMENTS} leaves. */
    truncated: z.boolean().default(false),
  })
  .meta({ id: 'Provenance' });
export type Provenance = z.infer<typeof Provenance>;
export type ProvenanceInput = z.input<typeof Provenance>;
