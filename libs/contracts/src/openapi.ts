import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { ApprovalDecisionRequest, ApprovalWaitQuery, Approval, GuardDecision, GuardRequest } from './guard';
import {
  CapabilityDeclaration,
  CapabilityDeclarationResponse,
  IdentifyRequest,
  IdentifyResponse,
} from './identify';
import { EventBatchRequest, EventBatchResponse } from './ingest';
import { AgentEvent } from './events';
import { Problem } from './problem';
import {
  AgentView,
  EventStatsView,
  EventView,
  Page,
  PageQuery,
  SessionDetailView,
  SessionView,
} from './read';

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});
const common = {
  '400': problem('Invalid body or parameters; `errors` names each offending path'),
  '401': problem('Missing or unknown API key'),
  '403': problem('The key lacks the scope, or the resource belongs to another project'),
};

/**
 * Builds the OpenAPI 3.1 document of the HTTP API from the zod contracts
 * (served at `GET /v1/openapi.json`). Pure; safe to call per request but meant to be cached.
 */
export function buildOpenApiDocument(version = '0.1.0'): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Agent Warden API',
      version,
      description:
        'Telemetry and guardrails for LLM agents. Errors are RFC 9457 problem details. Auth: `Authorization: Bearer <api key>`.',
    },
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } },
      schemas: { AgentEvent },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/v1/agents/identify': {
        post: {
          summary: 'Register an agent identity and version (idempotent)',
          requestBody: { content: { 'application/json': { schema: IdentifyRequest } } },
          responses: { '200': json(IdentifyResponse, 'The agent and version ids'), ...common },
        },
      },
      '/v1/agents/{agentId}/versions/{agentVersionId}/capabilities': {
        put: {
          summary: 'Declare the capabilities of an agent version (replaces the set)',
          requestParams: { path: z.object({ agentId: z.string(), agentVersionId: z.string() }) },
          requestBody: { content: { 'application/json': { schema: CapabilityDeclaration } } },
          responses: {
            '200': json(CapabilityDeclarationResponse, 'The stored capabilities'),
            ...common,
            '404': problem('Unknown agent or version'),
          },
        },
      },
      '/v1/events': {
        post: {
          summary: 'Ingest a batch of events',
          description:
            'Each item is validated on its own against AgentEvent; valid events are published to the event log even when others are rejected.',
          requestBody: { content: { 'application/json': { schema: EventBatchRequest } } },
          responses: {
            '202': json(EventBatchResponse, 'Accepted and rejected events'),
            ...common,
            '413': problem('Body too large or too many events'),
            '503': problem('The event log cannot take the write; retry'),
          },
        },
        get: {
          summary: 'Events by type, newest first',
          requestParams: {
            query: PageQuery.extend({ type: z.string().optional(), sessionId: z.string().optional() }),
          },
          responses: { '200': json(Page(EventView, 'EventPage'), 'A page of events'), ...common },
        },
      },
      '/v1/guardrails/evaluate': {
        post: {
          summary: 'Evaluate guardrails for an action about to run',
          requestBody: { content: { 'application/json': { schema: GuardRequest } } },
          responses: { '200': json(GuardDecision, 'The decision'), ...common },
        },
      },
      '/v1/approvals/{approvalId}': {
        get: {
          summary: 'Read an approval; long-polls up to waitSeconds while it is pending',
          requestParams: { path: z.object({ approvalId: z.string() }), query: ApprovalWaitQuery },
          responses: { '200': json(Approval, 'The approval'), ...common, '404': problem('Unknown approval') },
        },
      },
      '/v1/approvals/{approvalId}/decision': {
        post: {
          summary: 'Approve or deny a pending approval (admin scope); decided once',
          requestParams: { path: z.object({ approvalId: z.string() }) },
          requestBody: { content: { 'application/json': { schema: ApprovalDecisionRequest } } },
          responses: {
            '200': json(Approval, 'The decided approval'),
            ...common,
            '404': problem('Unknown approval'),
            '409': problem('Already decided or expired'),
          },
        },
      },
      '/v1/agents': {
        get: {
          summary: 'Agents of the project with their versions',
          responses: { '200': json(z.object({ items: z.array(AgentView) }), 'Agents'), ...common },
        },
      },
      '/v1/sessions': {
        get: {
          summary: 'Sessions, newest first',
          requestParams: { query: PageQuery.extend({ agentId: z.string().optional() }) },
          responses: { '200': json(Page(SessionView, 'SessionPage'), 'A page of sessions'), ...common },
        },
      },
      '/v1/sessions/{sessionId}': {
        get: {
          summary: 'One session with its runs and events in order',
          requestParams: { path: z.object({ sessionId: z.string() }) },
          responses: {
            '200': json(SessionDetailView, 'The session'),
            ...common,
            '404': problem('Unknown session'),
          },
        },
      },
      '/v1/stats/events': {
        get: {
          summary: 'Counts of stored events (for verifying projection)',
          responses: { '200': json(EventStatsView, 'Counts'), ...common },
        },
      },
      '/health': {
        get: { summary: 'Liveness', security: [], responses: { '200': { description: 'Alive' } } },
      },
      '/ready': {
        get: {
          summary: 'Readiness',
          security: [],
          responses: { '200': { description: 'Ready' }, '503': problem('Not ready') },
        },
      },
    },
  });
}
