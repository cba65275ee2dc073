/**
 * JSON test vectors of the wire contract (docs/architecture.md#contracts), generated from the zod schemas of
 * this package and written to `libs/contracts/vectors/*.json`. Clients in other languages (the
 * Python client) test against them: the requests they build must validate against each vector's
 * JSON Schema, and they must understand every response example.
 *
 * Every vector file has the same shape:
 * `{ name, description, kind: 'request' | 'response', method, path, schemaName, schema, examples }`
 * where `schema` is the JSON Schema (draft 2020-12, made by `z.toJSONSchema`: the input form of a
 * request, the output form of a response) and each example is `{ name, description?, status?,
 * headers?, body }`. Ids and times are fixed, so the output is deterministic.
 *
 *   npx tsx libs/contracts/scripts/generate-vectors.ts           # writes the files
 *   npx tsx libs/contracts/scripts/generate-vectors.ts --check   # exits 1 when they are stale
 *
 * `test/vectors.test.ts` fails when the committed files differ from what this script produces.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  AgentEvent,
  Approval,
  ApprovalDecisionRequest,
  CapabilityDeclaration,
  CapabilityDeclarationResponse,
  ERROR_CODES,
  EVENT_TYPES,
  EventBatchResponse,
  GuardDecision,
  GuardRequest,
  INGEST_LIMITS,
  IdentifyRequest,
  IdentifyResponse,
  PROBLEM_TYPE_BASE,
  Problem,
  type ErrorCode,
  type EventType,
} from '../src';

/** Where the vectors live. */
export const VECTORS_DIR = path.resolve(__dirname, '..', 'vectors');

/** One example body of a vector. */
export interface VectorExample {
  name: string;
  description?: string;
  /** HTTP status of a response example. */
  status?: number;
  /** Response headers that matter (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  body: unknown;
}

/** A vector before it is written: its zod schema (for the tests) and its examples. */
export interface VectorSpec {
  name: string;
  description: string;
  kind: 'request' | 'response';
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  schemaName: string;
  /** The zod schema every example must satisfy. */
  zod: z.ZodType;
  examples: VectorExample[];
}

/** The strict form of a `POST /v1/events` body: every item is checked as an {@link AgentEvent}. */
export const StrictEventBatchRequest = z
  .object({ events: z.array(AgentEvent).min(1).max(INGEST_LIMITS.maxEventsPerBatch) })
  .meta({ id: 'StrictEventBatchRequest' });

// Fixed ids (valid UUIDv7 for client ids, UUIDs for server ids) and times: deterministic output.
const AGENT_ID = '01970f3a-0000-7000-8000-00000000a001';
const AGENT_VERSION_ID = '01970f3a-0000-7000-8000-00000000a002';
const PROJECT_ID = '01970f3a-0000-7000-8000-00000000a003';
const SESSION_ID = '01970f3a-1000-7000-8000-000000000001';
const RUN_ID = '01970f3a-1000-7000-8000-000000000002';
const TOOL_CALL_ID = '01970f3a-1000-7000-8000-000000000003';
const EVALUATION_ID = '01970f3a-2000-7000-8000-000000000001';
const APPROVAL_ID = '01970f3a-2000-7000-8000-000000000002';
const POLICY_ID = '01970f3a-3000-7000-8000-000000000001';
const T0 = Date.UTC(2026, 10, 21, 15, 18, 4, 123);
const at = (ms: number) => new Date(T0 + ms).toISOString();
const eventId = (n: number) => `01970f3a-1000-7000-8000-1000000000${String(n).padStart(2, '0')}`;

/** One event of each of the 14 types, in a plausible session order, with parent links. */
function oneOfEachType(): Array<Record<string, unknown>> {
  const data: Record<EventType, Record<string, unknown>> = {
    'agent.session.started': { inputSummary: 'refund request #4412', attributes: { channel: 'email' } },
    'agent.run.started': { name: 'answer-ticket', inputSummary: 'Customer asks for a refund' },
    'agent.message.logged': { role: 'user', content: 'Please refund order 4412.' },
    'agent.guardrail.evaluated': {
      evaluationId: EVALUATION_ID,
      toolCallId: TOOL_CALL_ID,
      toolName: 'stripe.refund',
      mode: 'enforce',
      policyDecision: 'require_approval',
      effectiveDecision: 'require_approval',
      matchedGuardrails: [
        {
          policyId: POLICY_ID,
          name: 'refunds need a human',
          version: 1,
          decision: 'require_approval',
          reason: 'tool.name = "stripe.refund"',
        },
      ],
      wouldBlock: false,
      wouldRequireApproval: true,
      approvalId: APPROVAL_ID,
      outcome: 'awaiting_approval',
    },
    'agent.approval.requested': {
      approvalId: APPROVAL_ID,
      evaluationId: EVALUATION_ID,
      toolCallId: TOOL_CALL_ID,
      expiresAt: at(300_000),
    },
    'agent.approval.resolved': {
      approvalId: APPROVAL_ID,
      status: 'approved',
      decidedBy: 'alice@example.com',
      comment: 'ok',
      waitedMs: 5120,
    },
    'agent.tool.started': {
      toolCallId: TOOL_CALL_ID,
      toolName: 'stripe.refund',
      arguments: { chargeId: 'ch_1', amount: 120 },
      actionType: 'payment.refund',
      riskLevel: 'high',
      resource: { type: 'charge', id: 'ch_1', environment: 'production' },
    },
    'agent.tool.completed': {
      toolCallId: TOOL_CALL_ID,
      toolName: 'stripe.refund',
      result: { refundId: 're_1', status: 'succeeded' },
      durationMs: 231.4,
    },
    'agent.tool.failed': {
      toolCallId: '01970f3a-1000-7000-8000-000000000004',
      toolName: 'crm.lookup',
      error: { message: 'customer not found', type: 'NotFoundError' },
      durationMs: 12.5,
    },
    'agent.action.performed': {
      actionType: 'email.send',
      name: 'send-confirmation',
      resource: { type: 'mailbox', id: 'support' },
      riskLevel: 'low',
      details: { to: 'customer@example.com' },
    },
    'agent.llm.called': {
      llmCallId: '01970f3a-1000-7000-8000-0000000000a1',
      operation: 'chat',
      provider: 'openai',
      model: 'gpt-4o-mini',
      responseModel: 'gpt-4o-mini-2024-07-18',
      inputTokens: 1240,
      outputTokens: 96,
      cachedInputTokens: 1024,
      durationMs: 842.5,
      finishReasons: ['tool_calls'],
      attributes: { temperature: 0 },
    },
    'agent.custom': { name: 'cache.hit', data: { key: 'order:4412', ageMs: 812 } },
    'agent.run.completed': { status: 'succeeded', outputSummary: 'refunded 120 EUR', durationMs: 6021.7 },
    'agent.score.recorded': {
      scoreId: '01970f3a-1000-7000-8000-000000000005',
      name: 'refund_correct',
      value: 1,
      dataType: 'numeric',
      source: 'rule',
      comment: 'amount matches the order',
    },
    'agent.session.ended': { status: 'completed', outputSummary: 'ticket closed' },
  };
  const order: EventType[] = Object.keys(data) as EventType[];
  const ids = new Map(order.map((t, i) => [t, eventId(i + 1)]));
  const parentOf: Partial<Record<EventType, EventType>> = {
    'agent.approval.resolved': 'agent.approval.requested',
    'agent.tool.completed': 'agent.tool.started',
    'agent.run.completed': 'agent.run.started',
  };
  const inRun = (t: EventType) => t !== 'agent.session.started' && t !== 'agent.session.ended';
  return order.map((type, i) => {
    const parent = parentOf[type];
    return {
      id: ids.get(type),
      type,
      time: at(i * 100),
      sessionId: SESSION_ID,
      ...(inRun(type) ? { runId: RUN_ID } : {}),
      ...(parent ? { parentId: ids.get(parent) } : {}),
      agentId: AGENT_ID,
      agentVersionId: AGENT_VERSION_ID,
      sequence: i + 1,
      data: data[type],
    };
  });
}

/** An `agent.score.recorded` event on the session (no runId). */
function score(n: number, sequence: number, data: Record<string, unknown>): Record<string, unknown> {
  return {
    id: eventId(n),
    type: 'agent.score.recorded',
    time: at(n * 100),
    sessionId: SESSION_ID,
    agentId: AGENT_ID,
    agentVersionId: AGENT_VERSION_ID,
    sequence,
    data,
  };
}

const matched = (decision: string, name: string, reason: string) => ({
  policyId: POLICY_ID,
  name,
  version: 2,
  decision,
  reason,
});

function decision(
  name: string,
  mode: 'monitor' | 'enforce',
  policyDecision: 'allow' | 'warn' | 'block' | 'require_approval',
  extra: Record<string, unknown> = {},
): VectorExample {
  const effectiveDecision =
    mode === 'enforce' ? policyDecision : policyDecision === 'allow' ? 'allow' : 'warn';
  const guardrails =
    policyDecision === 'allow'
      ? []
      : [matched(policyDecision, `${policyDecision} policy`, 'tool.name = "sql.query"')];
  return {
    name,
    status: 200,
    body: {
      evaluationId: EVALUATION_ID,
      mode,
      policyDecision,
      effectiveDecision,
      matchedGuardrails: guardrails,
      wouldBlock: policyDecision === 'block',
      wouldRequireApproval: policyDecision === 'require_approval',
      ...extra,
      evaluatedAt: at(0),
    },
  };
}

function approval(name: string, status: string, extra: Partial<Record<string, unknown>> = {}): VectorExample {
  const decided = status === 'pending' ? {} : { decidedAt: at(5_000) };
  return {
    name,
    status: 200,
    body: {
      id: APPROVAL_ID,
      status,
      evaluationId: EVALUATION_ID,
      agentId: AGENT_ID,
      sessionId: SESSION_ID,
      toolName: 'stripe.refund',
      createdAt: at(0),
      expiresAt: at(300_000),
      decidedAt: null,
      decidedBy: null,
      comment: null,
      onTimeout: 'deny',
      ...decided,
      ...extra,
    },
  };
}

const PROBLEM_DETAILS: Record<
  ErrorCode,
  { detail: string; errors?: Array<{ path: string; message: string }> }
> = {
  invalid_json: {
    detail: 'request body is not valid JSON: Unexpected token',
    errors: [{ path: '(root)', message: 'malformed JSON' }],
  },
  validation_failed: {
    detail: 'request body does not match the schema',
    errors: [
      { path: 'agent.key', message: 'letters, digits and . _ : / - only, starting with a letter or digit' },
      { path: 'version.version', message: 'Too small: expected string to have >=1 characters' },
    ],
  },
  batch_too_large: {
    detail: `a batch holds at most ${INGEST_LIMITS.maxEventsPerBatch} events`,
    errors: [{ path: 'events', message: `more than ${INGEST_LIMITS.maxEventsPerBatch} events` }],
  },
  body_too_large: {
    detail: `request body exceeds the limit of ${INGEST_LIMITS.maxBodyBytes} bytes`,
    errors: [{ path: '(root)', message: `larger than ${INGEST_LIMITS.maxBodyBytes} bytes` }],
  },
  unauthenticated: { detail: 'missing or unknown API key' },
  forbidden: { detail: 'the API key lacks the scope admin' },
  not_found: { detail: 'approval not found' },
  conflict: {
    detail: 'approval is already denied',
    errors: [{ path: 'status', message: 'already denied' }],
  },
  rate_limited: { detail: 'too many requests; retry later' },
  event_log_unavailable: { detail: 'the event log cannot take the write; retry' },
  not_ready: { detail: 'the service is starting or stopping' },
  internal: { detail: 'internal error' },
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Content Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** One problem+json example per stable error code (`Retry-After` on 429 and 503). */
function problems(): VectorExample[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const status = ERROR_CODES[code];
    const { detail, errors } = PROBLEM_DETAILS[code] ?? { detail: code.replace(/_/g, ' ') };
    const retryAfter = status === 429 ? '2' : status === 503 ? '1' : undefined;
    return {
      name: code,
      status,
      headers: {
        'Content-Type': 'application/problem+json',
        ...(retryAfter ? { 'Retry-After': retryAfter } : {}),
      },
      body: {
        type: PROBLEM_TYPE_BASE + code,
        title: TITLES[status] ?? 'Error',
        status,
        detail,
        instance: '/v1/events',
        code,
        ...(errors ? { errors } : {}),
      },
    };
  });
}

/** Every vector, in a stable order. */
export function vectorSpecs(): VectorSpec[] {
  const events = oneOfEachType();
  return [
    {
      name: 'identify-request',
      description: 'Registration of the agent and its version at client construction (idempotent).',
      kind: 'request',
      method: 'POST',
      path: '/v1/agents/identify',
      schemaName: 'IdentifyRequest',
      zod: IdentifyRequest,
      examples: [
        { name: 'minimal', body: { agent: { key: 'billing-assistant' } } },
        {
          name: 'full',
          body: {
            agent: { key: 'billing-assistant', name: 'Billing assistant', description: 'Answers tickets' },
            version: { version: '1.4.2', metadata: { model: 'gpt-4.1', framework: 'custom' } },
          },
        },
        {
          name: 'metadata-only-version',
          description: 'No version string: the service hashes the metadata.',
          body: { agent: { key: 'ops/agent:7' }, version: { metadata: { promptHash: 'a1b2c3' } } },
        },
      ],
    },
    {
      name: 'capabilities-request',
      description: 'Declared after registration succeeded; replaces the declared set of the version.',
      kind: 'request',
      method: 'PUT',
      path: '/v1/agents/{agentId}/versions/{agentVersionId}/capabilities',
      schemaName: 'CapabilityDeclaration',
      zod: CapabilityDeclaration,
      examples: [
        {
          name: 'tools-and-actions',
          body: {
            capabilities: [
              { name: 'crm.lookup' },
              {
                name: 'stripe.refund',
                kind: 'tool',
                description: 'Refund a charge',
                riskLevel: 'high',
                actionType: 'payment.refund',
                resourceType: 'charge',
              },
              { name: 'email.send', kind: 'action', riskLevel: 'low' },
            ],
          },
        },
        { name: 'empty', body: { capabilities: [] } },
      ],
    },
    {
      name: 'event-batch-request',
      description:
        'A batch of events. The schema is the strict form (each item an AgentEvent); run.started and ' +
        'run.completed must also carry a runId (checked by the service, not expressible in the schema).',
      kind: 'request',
      method: 'POST',
      path: '/v1/events',
      schemaName: 'StrictEventBatchRequest',
      zod: StrictEventBatchRequest,
      examples: [
        {
          name: 'one-event-of-each-type',
          description: `The ${EVENT_TYPES.length} event types in one session, sequence 1..${EVENT_TYPES.length}.`,
          body: { events },
        },
        {
          name: 'session-scores',
          description:
            'Scores on the session (no runId) of each data type; scoreId is optional (the event id then identifies the score).',
          body: {
            events: [
              score(21, 1, { name: 'task_succeeded', value: true, dataType: 'boolean', source: 'rule' }),
              score(22, 2, {
                scoreId: '01970f3a-1000-7000-8000-000000000006',
                name: 'helpfulness',
                value: 'good',
                dataType: 'categorical',
                source: 'human',
                comment: 'polite and correct',
              }),
              score(23, 3, { name: 'reward', value: 0.5, dataType: 'numeric', source: 'evaluator' }),
            ],
          },
        },
        {
          name: 'guard-failed-open',
          description: 'A guard evaluation recorded when the service could not be reached (no evaluationId).',
          body: {
            events: [
              {
                id: eventId(20),
                type: 'agent.guardrail.evaluated',
                time: at(0),
                sessionId: SESSION_ID,
                agentId: AGENT_ID,
                agentVersionId: AGENT_VERSION_ID,
                sequence: 1,
                data: {
                  mode: 'monitor',
                  policyDecision: 'allow',
                  effectiveDecision: 'allow',
                  matchedGuardrails: [],
                  wouldBlock: false,
                  wouldRequireApproval: false,
                  outcome: 'failed_open',
                },
              },
            ],
          },
        },
      ],
    },
    {
      name: 'guard-request',
      description: 'Asked before a guarded tool call or action.',
      kind: 'request',
      method: 'POST',
      path: '/v1/guardrails/evaluate',
      schemaName: 'GuardRequest',
      zod: GuardRequest,
      examples: [
        {
          name: 'tool-call-enforce',
          body: {
            agentId: AGENT_ID,
            agentVersionId: AGENT_VERSION_ID,
            sessionId: SESSION_ID,
            runId: RUN_ID,
            toolCallId: TOOL_CALL_ID,
            mode: 'enforce',
            action: { type: 'payment.refund', name: 'stripe.refund' },
            tool: { name: 'stripe.refund' },
            resource: { type: 'charge', id: 'ch_1', environment: 'production' },
            riskLevel: 'high',
            arguments: { chargeId: 'ch_1', amount: 120 },
            dryRun: false,
          },
        },
        {
          name: 'action-monitor',
          description: 'A non-tool action (withGuard), outside a run.',
          body: {
            agentId: AGENT_ID,
            agentVersionId: AGENT_VERSION_ID,
            sessionId: SESSION_ID,
            mode: 'monitor',
            action: { type: 'email.send', name: 'send-newsletter' },
            dryRun: false,
          },
        },
        {
          name: 'dry-run',
          body: {
            agentId: AGENT_ID,
            mode: 'enforce',
            tool: { name: 'sql.query' },
            arguments: { query: 'DROP TABLE users' },
            dryRun: true,
          },
        },
      ],
    },
    {
      name: 'approval-decision-request',
      description: 'A person (or an admin-scope key) decides a pending approval.',
      kind: 'request',
      method: 'POST',
      path: '/v1/approvals/{approvalId}/decision',
      schemaName: 'ApprovalDecisionRequest',
      zod: ApprovalDecisionRequest,
      examples: [
        { name: 'approve', body: { status: 'approved' } },
        { name: 'deny', body: { status: 'denied', comment: 'not this one', decidedBy: 'alice@example.com' } },
      ],
    },
    {
      name: 'identify-response',
      description: 'The agent and version ids.',
      kind: 'response',
      method: 'POST',
      path: '/v1/agents/identify',
      schemaName: 'IdentifyResponse',
      zod: IdentifyResponse,
      examples: [
        {
          name: 'created',
          status: 200,
          body: {
            agentId: AGENT_ID,
            agentVersionId: AGENT_VERSION_ID,
            projectId: PROJECT_ID,
            version: '1.4.2',
            created: true,
          },
        },
        {
          name: 'existing-hashed-version',
          status: 200,
          body: {
            agentId: AGENT_ID,
            agentVersionId: AGENT_VERSION_ID,
            projectId: PROJECT_ID,
            version: 'sha256:3f1c0a9e',
            created: false,
          },
        },
      ],
    },
    {
      name: 'capabilities-response',
      description: 'The declared set, with defaults applied.',
      kind: 'response',
      method: 'PUT',
      path: '/v1/agents/{agentId}/versions/{agentVersionId}/capabilities',
      schemaName: 'CapabilityDeclarationResponse',
      zod: CapabilityDeclarationResponse,
      examples: [
        {
          name: 'declared',
          status: 200,
          body: {
            agentVersionId: AGENT_VERSION_ID,
            capabilities: [{ name: 'crm.lookup', kind: 'tool' }],
          },
        },
      ],
    },
    {
      name: 'event-batch-response',
      description: '202: valid events are kept even when some in the batch are not.',
      kind: 'response',
      method: 'POST',
      path: '/v1/events',
      schemaName: 'EventBatchResponse',
      zod: EventBatchResponse,
      examples: [
        { name: 'all-accepted', status: 202, body: { accepted: 13, rejected: [] } },
        {
          name: 'some-rejected',
          status: 202,
          body: {
            accepted: 2,
            rejected: [
              {
                index: 1,
                id: eventId(2),
                code: 'invalid_event',
                message: 'event does not match the contract',
                errors: [{ path: 'data.toolName', message: 'Required' }],
              },
              { index: 2, id: null, code: 'unknown_event_type', message: 'unknown type agent.thing.done' },
              {
                index: 4,
                id: eventId(5),
                code: 'event_too_large',
                message: 'event larger than 262144 bytes',
              },
              {
                index: 5,
                id: eventId(6),
                code: 'forbidden_agent',
                message: 'agentId belongs to another project',
              },
            ],
          },
        },
      ],
    },
    {
      name: 'guard-decision',
      description:
        'The decision. effectiveDecision = policyDecision in enforce; in monitor allow stays allow and all ' +
        'else is warn. An enforce require_approval carries the pending approval.',
      kind: 'response',
      method: 'POST',
      path: '/v1/guardrails/evaluate',
      schemaName: 'GuardDecision',
      zod: GuardDecision,
      examples: [
        decision('allow-monitor', 'monitor', 'allow'),
        decision('allow-enforce', 'enforce', 'allow'),
        decision('warn-monitor', 'monitor', 'warn'),
        decision('warn-enforce', 'enforce', 'warn'),
        decision('block-monitor', 'monitor', 'block'),
        decision('block-enforce', 'enforce', 'block'),
        decision('require-approval-monitor', 'monitor', 'require_approval'),
        decision('require-approval-enforce', 'enforce', 'require_approval', {
          approval: { id: APPROVAL_ID, status: 'pending', expiresAt: at(300_000) },
        }),
      ],
    },
    {
      name: 'approval',
      description:
        'An approval as read by the long poll (pending → approved | denied | expired | cancelled).',
      kind: 'response',
      method: 'GET',
      path: '/v1/approvals/{approvalId}?waitSeconds=N',
      schemaName: 'Approval',
      zod: Approval,
      examples: [
        approval('pending', 'pending'),
        approval('approved', 'approved', { decidedBy: 'alice@example.com', comment: 'looks fine' }),
        approval('denied', 'denied', { decidedBy: 'api-key:key_1', comment: 'not this one' }),
        approval('expired-deny', 'expired', { decidedBy: 'system:timeout' }),
        approval('expired-approve', 'expired', { decidedBy: 'system:timeout', onTimeout: 'approve' }),
        approval('cancelled', 'cancelled', { sessionId: null, toolName: null }),
      ],
    },
    {
      name: 'problem',
      description: 'application/problem+json (RFC 9457) bodies, one per stable error code.',
      kind: 'response',
      method: 'POST',
      path: '*',
      schemaName: 'Problem',
      zod: Problem,
      examples: problems(),
    },
  ];
}

/** JSON Schema of a vector: the input form of a request body, the output form of a response. */
function jsonSchemaOf(spec: VectorSpec): unknown {
  return z.toJSONSchema(spec.zod, {
    io: spec.kind === 'request' ? 'input' : 'output',
    // JsonObject is a z.custom (src/common.ts) whose meta `override` says what it renders as, as
    // zod-openapi reads it for the OpenAPI document.
    unrepresentable: 'any',
    override: (ctx) => {
      const js = ctx.jsonSchema as Record<string, unknown>;
      const o = js.override;
      if (o && typeof o === 'object') {
        delete js.override;
        Object.assign(js, o);
      }
    },
  });
}

/** The content of every vector file, by file name (`<name>.json`). */
export function buildVectors(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of vectorSpecs()) {
    out[`${spec.name}.json`] = {
      name: spec.name,
      description: spec.description,
      kind: spec.kind,
      method: spec.method,
      path: spec.path,
      schemaName: spec.schemaName,
      schema: jsonSchemaOf(spec),
      examples: spec.examples,
    };
  }
  return out;
}

/** Formats a vector as the repository's prettier would (keeps `prettier --check` green). */
async function render(value: unknown, file: string): Promise<string> {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(JSON.stringify(value), { ...options, parser: 'json', filepath: file });
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const vectors = buildVectors();
  const stale: string[] = [];
  if (!check) fs.mkdirSync(VECTORS_DIR, { recursive: true });
  for (const [name, value] of Object.entries(vectors)) {
    const file = path.join(VECTORS_DIR, name);
    const text = await render(value, file);
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    if (current === text) continue;
    if (check) stale.push(name);
    else fs.writeFileSync(file, text);
  }
  const extra = fs.existsSync(VECTORS_DIR)
    ? fs.readdirSync(VECTORS_DIR).filter((f) => f.endsWith('.json') && !(f in vectors))
    : [];
  if (check) {
    if (stale.length + extra.length > 0) {
      console.error(`stale vectors: ${[...stale, ...extra].join(', ')}; run this script without --check`);
      process.exit(1);
    }
    console.log(`${Object.keys(vectors).length} vectors up to date`);
    return;
  }
  for (const f of extra) fs.unlinkSync(path.join(VECTORS_DIR, f));
  console.log(`wrote ${Object.keys(vectors).length} vectors to ${path.relative(process.cwd(), VECTORS_DIR)}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
