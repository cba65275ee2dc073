import { z } from 'zod';
import { JsonObject, RiskLevel } from './common';

/** Agent key: the stable identity of an agent within a project, e.g. `billing-assistant`. */
export const AgentKey = z
  .string()
  .min(1)
  .max(128)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/,
    'letters, digits and . _ : / - only, starting with a letter or digit',
  );

/** `POST /v1/agents/identify` body. Idempotent: the same identity and version give the same ids. */
export const IdentifyRequest = z
  .object({
    agent: z.object({
      key: AgentKey,
      name: z.string().min(1).max(200).optional(),
      description: z.string().max(2000).optional(),
    }),
    version: z
      .object({
        /** Version string, e.g. a semver or git sha. When absent, the server hashes `metadata`. */
        version: z.string().min(1).max(128).optional(),
        /** Free metadata about this version: model, prompt hash, framework, ... */
        metadata: JsonObject.optional(),
      })
      .optional(),
  })
  .meta({ id: 'IdentifyRequest' });
export type IdentifyRequest = z.infer<typeof IdentifyRequest>;

/** `POST /v1/agents/identify` response (200). */
export const IdentifyResponse = z
  .object({
    agentId: z.string(),
    agentVersionId: z.string(),
    projectId: z.string(),
    version: z.string(),
    created: z.boolean().describe('true when this call created the agent version'),
  })
  .meta({ id: 'IdentifyResponse' });
export type IdentifyResponse = z.infer<typeof IdentifyResponse>;

/** One capability an agent version declares (a tool or action it may perform). */
export const Capability = z
  .object({
    name: z.string().min(1).max(200),
    kind: z.enum(['tool', 'action']).default('tool'),
    description: z.string().max(2000).optional(),
    riskLevel: RiskLevel.optional(),
    actionType: z.string().max(200).optional(),
    resourceType: z.string().max(200).optional(),
  })
  .meta({ id: 'Capability' });
export type Capability = z.infer<typeof Capability>;

/** `PUT /v1/agents/{agentId}/versions/{agentVersionId}/capabilities` body: replaces the declared set. */
export const CapabilityDeclaration = z
  .object({ capabilities: z.array(Capability).max(1000) })
  .meta({ id: 'CapabilityDeclaration' });
export type CapabilityDeclaration = z.input<typeof CapabilityDeclaration>;

/** Response of the capability declaration (200). */
export const CapabilityDeclarationResponse = z
  .object({ agentVersionId: z.string(), capabilities: z.array(Capability) })
  .meta({ id: 'CapabilityDeclarationResponse' });
