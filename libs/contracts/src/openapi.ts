import { z } from 'zod';
import { Uuid } from './common';
import { INT4_MAX } from './json-safety';
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
import { invalid, json, jsonBody, problem } from './openapi-helpers';
import { intelligencePaths } from './openapi-intelligence';
import { otlpPaths } from './openapi-otlp';
import { peoplePaths } from './openapi-people';
import { webhookPaths } from './openapi-webhooks';
import { agentDeleteOperation, dataLifecyclePaths, sessionDeleteOperation } from './openapi-data-lifecycle';
import {
  AgentDetailView,
  DecisionStatsQuery,
  DecisionStatsView,
  EventsExplorerQuery,
  SessionListItem,
  SessionsListQuery,
  TopPoliciesQuery,
  TopPoliciesView,
} from './dashboard-api';
import { PolicyInput } from './policy';
import {
  AuditEntryView,
  AuditQuery,
  BacktestRequest,
  BacktestResponse,
  DryRunRequest,
  DryRunResponse,
  PolicyExport,
  PolicyExportQuery,
  PolicyImportRequest,
  PolicyImportResult,
  PolicyListQuery,
  PolicyUpdateRequest,
  DescribedPolicyVersionView,
  PolicyOperatorList,
  PolicyValidationView,
  PolicyVersionsQuery,
  DescribedPolicyView,
  ProjectSettings,
} from './policy-api';
import {
  AgentView,
  EvaluationView,
  EventStatsView,
  EventView,
  Page,
  SessionDetailQuery,
  SessionDetailView,
  SessionEventsQuery,
} from './read';
import { ScoreRequest, ScoreView } from './scores';
import { ActivityStatsView, LlmCallView, LlmUsageView, UsageQuery } from './llm-api';
import { VersionComparisonQuery, VersionComparisonView } from './version-comparison';

const common = {
  ...invalid,
  '401': problem('Missing or unknown API key'),
  '403': problem('The key lacks the scope, or the resource belongs to another project'),
};

const policyParam = { path: z.object({ policyId: Uuid }) };
const policyNotFound = { '404': problem('Unknown (or deleted) policy') };

/** The dashboard's agent page and guardrail statistics (libs/contracts/src/dashboard-api.ts). */
const dashboardPaths = {
  '/v1/agents/{agentId}': {
    get: {
      summary:
        'One agent: versions with metadata and capabilities, first/last seen, sessions and decisions per version',
      requestParams: { path: z.object({ agentId: Uuid }) },
      responses: { '200': json(AgentDetailView, 'The agent'), ...common, '404': problem('Unknown agent') },
    },
    delete: agentDeleteOperation,
  },
  '/v1/agents/{agentId}/compare': {
    get: {
      summary:
        "2–5 versions of the agent side by side over a window: sessions, score rates with Wilson intervals, tool calls and failures, decisions, approvals, and each rate's difference from the first version with its Newcombe interval",
      requestParams: { path: z.object({ agentId: Uuid }), query: VersionComparisonQuery },
      responses: {
        '200': json(VersionComparisonView, 'The versions in the requested order and their differences'),
        ...common,
        '404': problem('Unknown agent'),
      },
    },
  },
  '/v1/stats/decisions': {
    get: {
      summary: 'Guardrail evaluations per hour or day by policy decision (dry runs excluded)',
      requestParams: { query: DecisionStatsQuery },
      responses: { '200': json(DecisionStatsView, 'Buckets in time order, zeros included'), ...common },
    },
  },
  '/v1/llm/usage': {
    get: {
      summary:
        'LLM usage of the project or one agent per hour or day: calls, errors, tokens, cost and latency percentiles, per bucket, per model and in total',
      description:
        'Every bucket of the range is present (zeros included); a model lists only its buckets with calls. Costs sum the known costs; `unpricedCalls` counts the calls whose cost is unknown (docs/architecture.md#llm-calls).',
      requestParams: { query: UsageQuery },
      responses: { '200': json(LlmUsageView, 'Usage in time order'), ...common },
    },
  },
  '/v1/stats/activity': {
    get: {
      summary:
        'Events per hour or day of the project or one agent, with tool calls, tool failures, LLM calls and failed LLM calls (event rate and error rate)',
      requestParams: { query: UsageQuery },
      responses: { '200': json(ActivityStatsView, 'Buckets in time order, zeros included'), ...common },
    },
  },
  '/v1/stats/top-policies': {
    get: {
      summary: 'Most matched policies in a time range',
      requestParams: { query: TopPoliciesQuery },
      responses: { '200': json(TopPoliciesView, 'Policies, most matches first'), ...common },
    },
  },
};

/** Policy management, dry run and backtest, project settings and the audit log (docs/guardrails.md). */
const policyPaths = {
  '/v1/policies': {
    get: {
      summary: 'Policies of the project by name, with filters (read scope)',
      requestParams: { query: PolicyListQuery },
      responses: { '200': json(Page(DescribedPolicyView, 'PolicyPage'), 'A page of policies'), ...common },
    },
    post: {
      summary: 'Create a policy (admin scope); version 1',
      requestBody: jsonBody(PolicyInput),
      responses: {
        '201': json(DescribedPolicyView, 'The stored policy'),
        ...common,
        '409': problem('A policy of the project already has this name'),
      },
    },
  },
  '/v1/policies/import': {
    post: {
      summary: 'Import a policy set, all or nothing (admin scope)',
      requestBody: jsonBody(PolicyImportRequest),
      responses: {
        '200': json(PolicyImportResult, 'What was created, updated or skipped'),
        ...common,
        '409': problem('Names already in use (onConflict: fail)'),
      },
    },
  },
  '/v1/policies/export': {
    get: {
      summary: 'Export the policies as an importable set (read scope)',
      requestParams: { query: PolicyExportQuery },
      responses: { '200': json(PolicyExport, 'The policy set'), ...common },
    },
  },
  '/v1/policies/validate': {
    post: {
      summary:
        'Check a policy body as a create would, and give its rule text (read scope; nothing is stored)',
      description:
        'The body is a draft: any JSON object, shaped like a policy (`PolicyInput`) or not; what is wrong with it comes back as `errors` with a 200. A body that is not a JSON object is a 400.',
      requestBody: jsonBody(
        z
          .record(z.string(), z.unknown())
          .meta({ id: 'PolicyDraft', description: 'A policy draft (see PolicyInput)' }),
      ),
      responses: {
        '200': json(PolicyValidationView, 'Whether it is valid, its errors and its rule'),
        ...common,
      },
    },
  },
  '/v1/policy-operators': {
    get: {
      summary: 'The operators a condition may use, with their operand and text (read scope)',
      responses: { '200': json(PolicyOperatorList, 'The operator registry'), ...common },
    },
  },
  '/v1/policies/dry-run': {
    post: {
      summary: 'Try a draft or stored policy on one call (admin scope; nothing is stored)',
      requestBody: jsonBody(DryRunRequest),
      responses: {
        '200': json(DryRunResponse, 'Whether it matches, with the reason'),
        ...common,
        ...policyNotFound,
      },
    },
  },
  '/v1/policies/backtest': {
    post: {
      summary: "Evaluate a draft or stored policy over the project's stored tool calls (admin scope)",
      requestBody: jsonBody(BacktestRequest),
      responses: {
        '200': json(BacktestResponse, 'Counts and a page of matches'),
        ...common,
        ...policyNotFound,
      },
    },
  },
  '/v1/policies/{policyId}': {
    get: {
      summary: 'One policy, deleted ones included (read scope)',
      requestParams: policyParam,
      responses: { '200': json(DescribedPolicyView, 'The policy'), ...common, ...policyNotFound },
    },
    put: {
      summary: 'Replace a policy (admin scope); a new version each time',
      requestParams: policyParam,
      requestBody: jsonBody(PolicyUpdateRequest),
      responses: {
        '200': json(DescribedPolicyView, 'The new version'),
        ...common,
        ...policyNotFound,
        '409': problem('Name in use, or expectedVersion is stale'),
      },
    },
    delete: {
      summary: 'Delete a policy (soft: kept with deletedAt, versions stay readable; admin scope)',
      requestParams: policyParam,
      responses: { '204': { description: 'Deleted' }, ...common, ...policyNotFound },
    },
  },
  '/v1/policies/{policyId}/enable': {
    post: {
      summary: 'Enable a policy (admin scope); a new version unless already enabled',
      requestParams: policyParam,
      responses: { '200': json(DescribedPolicyView, 'The policy'), ...common, ...policyNotFound },
    },
  },
  '/v1/policies/{policyId}/disable': {
    post: {
      summary: 'Disable a policy (admin scope); a new version unless already disabled',
      requestParams: policyParam,
      responses: { '200': json(DescribedPolicyView, 'The policy'), ...common, ...policyNotFound },
    },
  },
  '/v1/policies/{policyId}/versions': {
    get: {
      summary: 'Versions of a policy, newest first (read scope)',
      requestParams: { ...policyParam, query: PolicyVersionsQuery },
      responses: {
        '200': json(Page(DescribedPolicyVersionView, 'PolicyVersionPage'), 'Versions'),
        ...common,
        ...policyNotFound,
      },
    },
  },
  '/v1/policies/{policyId}/versions/{version}': {
    get: {
      summary: 'One version of a policy (read scope)',
      requestParams: {
        path: z.object({ policyId: Uuid, version: z.coerce.number().int().min(1).max(INT4_MAX) }),
      },
      responses: {
        '200': json(DescribedPolicyVersionView, 'The version'),
        ...common,
        '404': problem('Unknown version'),
      },
    },
  },
  '/v1/projects/current/settings': {
    get: {
      summary: "The key's project settings (read scope)",
      responses: { '200': json(ProjectSettings, 'Settings'), ...common },
    },
    put: {
      summary: 'Set the default decision (admin scope)',
      requestBody: jsonBody(ProjectSettings),
      responses: { '200': json(ProjectSettings, 'Settings'), ...common },
    },
  },
  '/v1/audit': {
    get: {
      summary: 'Audit log of policy and settings changes, newest first (admin scope)',
      requestParams: { query: AuditQuery },
      responses: { '200': json(Page(AuditEntryView, 'AuditPage'), 'A page of audit records'), ...common },
    },
  },
};

/**
 * Builds the OpenAPI 3.1 document of the HTTP API from the zod contracts
 * (served at `GET /v1/openapi.json`). Pure; safe to call per request but meant to be cached.
 */
export function buildOpenApiDocument(version = '0.1.0'): ReturnType<typeof createDocument> {
  return createDocument(documentObject(version), {
    // JsonObject is a z.custom (zod's record drops `__proto__` keys); its meta says what it renders as.
    allowEmptySchema: { custom: true },
  });
}

function documentObject(version: string): Parameters<typeof createDocument>[0] {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Warden API',
      version,
      description:
        'Telemetry and guardrails for LLM agents. Errors are RFC 9457 problem details. Auth: `Authorization: Bearer <api key>`.',
    },
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer' },
        session: { type: 'apiKey', in: 'cookie', name: 'warden_session' },
      },
      schemas: { AgentEvent },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/v1/agents/identify': {
        post: {
          summary: 'Register an agent identity and version (idempotent)',
          requestBody: jsonBody(IdentifyRequest),
          responses: { '200': json(IdentifyResponse, 'The agent and version ids'), ...common },
        },
      },
      '/v1/agents/{agentId}/versions/{agentVersionId}/capabilities': {
        put: {
          summary: 'Declare the capabilities of an agent version (replaces the set)',
          requestParams: { path: z.object({ agentId: Uuid, agentVersionId: Uuid }) },
          requestBody: jsonBody(CapabilityDeclaration),
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
          requestBody: jsonBody(EventBatchRequest),
          responses: {
            '202': json(EventBatchResponse, 'Accepted and rejected events'),
            ...common,
            '413': problem('Body too large or too many events'),
            '503': problem('The event log cannot take the write; retry'),
          },
        },
        get: {
          summary: 'Events explorer: by type, agent, session, guardrail decision and time; newest first',
          requestParams: { query: EventsExplorerQuery },
          responses: { '200': json(Page(EventView, 'EventPage'), 'A page of events'), ...common },
        },
      },
      '/v1/guardrails/evaluate': {
        post: {
          summary: 'Evaluate guardrails for an action about to run',
          description:
            'With an `Idempotency-Key` header (the TypeScript client sends the tool call id), a retried request gets the same evaluationId and approval, and the evaluation is recorded once; ignored for dry runs.',
          requestParams: {
            header: z.object({
              'idempotency-key': z.string().max(255).optional().meta({
                description:
                  'Makes a retry record one evaluation (draft-ietf-httpapi-idempotency-key-header)',
              }),
            }),
          },
          requestBody: jsonBody(GuardRequest),
          responses: { '200': json(GuardDecision, 'The decision'), ...common },
        },
      },
      '/v1/approvals/{approvalId}': {
        get: {
          summary: 'Read an approval; long-polls up to waitSeconds while it is pending',
          requestParams: { path: z.object({ approvalId: Uuid }), query: ApprovalWaitQuery },
          responses: { '200': json(Approval, 'The approval'), ...common, '404': problem('Unknown approval') },
        },
      },
      '/v1/approvals/{approvalId}/decision': {
        post: {
          summary: 'Approve or deny a pending approval (approver or admin people, admin keys); decided once',
          requestParams: { path: z.object({ approvalId: Uuid }) },
          requestBody: jsonBody(ApprovalDecisionRequest),
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
          summary:
            'Sessions, newest first, filtered (agent, version, time, status, blocks, pending approvals, text)',
          requestParams: { query: SessionsListQuery },
          responses: { '200': json(Page(SessionListItem, 'SessionPage'), 'A page of sessions'), ...common },
        },
      },
      ...dashboardPaths,
      '/v1/sessions/{sessionId}': {
        get: {
          summary: 'One session with its runs, events in replay order and approval transitions',
          description:
            'With `eventsLimit` the answer holds the first events only and `eventsNextCursor`; the rest come from `GET /v1/sessions/{sessionId}/events`.',
          requestParams: { path: z.object({ sessionId: Uuid }), query: SessionDetailQuery },
          responses: {
            '200': json(SessionDetailView, 'The session'),
            ...common,
            '404': problem('Unknown session'),
          },
        },
        delete: sessionDeleteOperation,
      },
      '/v1/sessions/{sessionId}/events': {
        get: {
          summary: "A session's events in replay order (sequence, then id), keyset paged",
          description:
            "Pass `nextCursor` (or the session's `eventsNextCursor`) back as `cursor` for the next page; null at the end.",
          requestParams: { path: z.object({ sessionId: Uuid }), query: SessionEventsQuery },
          responses: {
            '200': json(Page(EventView, 'SessionEventPage'), 'A page of events'),
            ...common,
            '404': problem('Unknown session'),
          },
        },
      },
      '/v1/sessions/{sessionId}/evaluations': {
        get: {
          summary: "A session's guardrail evaluations with their provenance, oldest first (at most 2,000)",
          description:
            'Each evaluation carries the provenance its request sent (docs/provenance.md): a tainted argument names the tool calls it came from. A session without stored evaluations (or unknown) gives an empty list.',
          requestParams: { path: z.object({ sessionId: Uuid }) },
          responses: {
            '200': json(
              z.object({ items: z.array(EvaluationView) }).meta({ id: 'EvaluationList' }),
              'Evaluations',
            ),
            ...common,
          },
        },
      },
      '/v1/sessions/{sessionId}/scores': {
        get: {
          summary: "A session's scores (and its runs'), oldest first (at most 1,000)",
          requestParams: { path: z.object({ sessionId: Uuid }) },
          responses: {
            '200': json(z.object({ items: z.array(ScoreView) }).meta({ id: 'ScoreList' }), 'Scores'),
            ...common,
            '404': problem('Unknown session'),
          },
        },
        post: {
          summary:
            'Set a score on the session or one of its runs (approver or admin people, admin keys); idempotent by scoreId',
          description:
            'Stored at once by the same statement the projector uses for `agent.score.recorded` (docs/decisions.md "Scores set through the API are written by the api"). A scoreId already stored answers 200 with the stored score, a new one 201.',
          requestParams: { path: z.object({ sessionId: Uuid }) },
          requestBody: jsonBody(ScoreRequest),
          responses: {
            '201': json(ScoreView, 'The stored score'),
            '200': json(ScoreView, 'The score stored earlier under this scoreId'),
            ...common,
            '404': problem('Unknown session, or a runId that is not a run of it'),
            '409': problem('The scoreId is a score of another session'),
          },
        },
      },
      '/v1/sessions/{sessionId}/llm-calls': {
        get: {
          summary:
            "A session's LLM calls with model, tokens, latency, cost and its source, oldest first (at most 2,000)",
          requestParams: { path: z.object({ sessionId: Uuid }) },
          responses: {
            '200': json(z.object({ items: z.array(LlmCallView) }).meta({ id: 'LlmCallList' }), 'LLM calls'),
            ...common,
            '404': problem('Unknown session'),
          },
        },
      },
      '/v1/evaluations/{evaluationId}': {
        get: {
          summary:
            'One stored guardrail evaluation: decision, reasons, the call as evaluated and its provenance',
          requestParams: { path: z.object({ evaluationId: Uuid }) },
          responses: {
            '200': json(EvaluationView, 'The evaluation'),
            ...common,
            '404': problem(
              'Unknown evaluation (or not stored yet: evaluations are recorded after the answer)',
            ),
          },
        },
      },
      '/v1/stats/events': {
        get: {
          summary: 'Counts of stored events (for verifying projection)',
          responses: { '200': json(EventStatsView, 'Counts'), ...common },
        },
      },
      ...policyPaths,
      ...peoplePaths,
      ...intelligencePaths,
      ...otlpPaths,
      ...webhookPaths,
      ...dataLifecyclePaths,
      '/v1/openapi.json': {
        get: {
          summary: 'This document (OpenAPI 3.1)',
          security: [],
          responses: { '200': { description: 'The OpenAPI document', content: { 'application/json': {} } } },
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
  };
}
