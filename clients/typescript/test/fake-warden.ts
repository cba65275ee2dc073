/**
 * A minimal, real HTTP test double of the Agent Warden SERVICE (gateway endpoints used by the
 * client), implementing the contract just enough to exercise the real client: it records every
 * request, answers per the contract, and can be told to fail or decide in a given way.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AgentEvent,
  CapabilityDeclaration,
  GuardRequest,
  IdentifyRequest,
  effectiveDecision,
  newId,
  type Approval,
  type ApprovalStatus,
  type Decision,
  type GuardDecision,
  type Mode,
} from '@agent-warden/contracts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
  at: number;
}

export interface Fault {
  method?: string;
  path: string | RegExp;
  status: number;
  headers?: Record<string, string>;
  times: number;
}

export interface RecordedEvent {
  id: string;
  type: string;
  sessionId: string;
  runId?: string;
  parentId?: string;
  agentId: string;
  agentVersionId: string;
  sequence: number;
  time: string;
  data: Record<string, unknown>;
}

/** How approvals created by `require_approval` evolve. */
export interface ApprovalPlan {
  /** Status to move to. `pending` = never decided. */
  status: ApprovalStatus;
  /** Delay before the move, ms. */
  afterMs: number;
  /** Seconds until `expiresAt`. */
  expiresInSeconds?: number;
  onTimeout?: 'deny' | 'approve';
}

export class FakeWarden {
  readonly requests: RecordedRequest[] = [];
  readonly events: RecordedEvent[] = [];
  readonly faults: Fault[] = [];
  readonly agentId = '0190a5f1-0000-4000-8000-000000000001';
  readonly agentVersionId = '0190a5f1-0000-4000-8000-000000000002';
  /** Delay before answering identify, ms. */
  identifyDelayMs = 0;
  /** Policy decision per evaluate request (default: allow). */
  decide: (req: Record<string, unknown>) => Decision = () => 'allow';
  approvalPlan: ApprovalPlan = { status: 'approved', afterMs: 50 };
  /** Requests and events that broke the contract (checked with the zod schemas); should stay empty. */
  readonly contractViolations: Array<{ what: string; issues: string }> = [];
  /** Event ids to reject in the 202 answer. */
  rejectIds = new Set<string>();
  /** Most `POST /v1/events` handled at the same time (checks the single flush loop). */
  maxConcurrentEventPosts = 0;
  private concurrentEventPosts = 0;
  private readonly approvals = new Map<string, Approval>();
  private readonly waiters = new Map<string, Array<() => void>>();
  private server: Server | undefined;
  private timers: NodeJS.Timeout[] = [];
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts listening (on `port` when given, e.g. to come back on the same address). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const ws of this.waiters.values()) for (const w of ws) w();
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Makes the next `times` requests matching `path` answer `status` (problem+json). */
  fail(
    path: string | RegExp,
    status: number,
    times = 1,
    headers?: Record<string, string>,
    method?: string,
  ): void {
    this.faults.push({ path, status, times, headers, method });
  }

  requestsTo(path: string | RegExp, method?: string): RecordedRequest[] {
    return this.requests.filter((r) => matches(r.path, path) && (!method || r.method === method));
  }

  eventsOfType(type: string): RecordedEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const raw = await readBody(req);
    const body = raw ? JSON.parse(raw) : undefined;
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      at: Date.now(),
    };
    this.requests.push(rec);

    const fault = this.faults.find(
      (f) => f.times > 0 && matches(rec.path, f.path) && (!f.method || f.method === rec.method),
    );
    if (fault) {
      fault.times--;
      return problem(res, fault.status, fault.headers);
    }
    if (req.headers.authorization !== 'Bearer test-key') return problem(res, 401);

    const schema =
      rec.method === 'POST' && rec.path === '/v1/agents/identify'
        ? IdentifyRequest
        : rec.method === 'POST' && rec.path === '/v1/guardrails/evaluate'
          ? GuardRequest
          : rec.method === 'PUT'
            ? CapabilityDeclaration
            : undefined;
    const checked = schema?.safeParse(body);
    if (checked && !checked.success) {
      this.contractViolations.push({ what: `${rec.method} ${rec.path}`, issues: checked.error.message });
      return problem(res, 400);
    }

    if (rec.method === 'POST' && rec.path === '/v1/agents/identify') {
      if (this.identifyDelayMs) await delay(this.identifyDelayMs);
      return json(res, 200, {
        agentId: this.agentId,
        agentVersionId: this.agentVersionId,
        projectId: 'prj_test',
        version: (body as { version?: { version?: string } }).version?.version ?? 'hash-1',
        created: true,
      });
    }
    const caps = /^\/v1\/agents\/([^/]+)\/versions\/([^/]+)\/capabilities$/.exec(rec.path);
    if (rec.method === 'PUT' && caps) {
      return json(res, 200, {
        agentVersionId: caps[2],
        capabilities: (body as { capabilities: unknown[] }).capabilities,
      });
    }
    if (rec.method === 'POST' && rec.path === '/v1/events')
      return this.ingest(res, body as { events: RecordedEvent[] });
    if (rec.method === 'POST' && rec.path === '/v1/guardrails/evaluate')
      return this.evaluate(res, body as Record<string, unknown>);
    const apr = /^\/v1\/approvals\/([^/]+)$/.exec(rec.path);
    if (rec.method === 'GET' && apr)
      return this.approval(res, apr[1]!, Number(url.searchParams.get('waitSeconds') ?? 0));
    return problem(res, 404);
  }

  private async ingest(res: ServerResponse, body: { events: RecordedEvent[] }): Promise<void> {
    this.concurrentEventPosts++;
    this.maxConcurrentEventPosts = Math.max(this.maxConcurrentEventPosts, this.concurrentEventPosts);
    await delay(5);
    this.concurrentEventPosts--;
    const rejected: Array<{ index: number; id: string; code: string; message: string }> = [];
    let accepted = 0;
    body.events.forEach((e, index) => {
      const valid = AgentEvent.safeParse(e);
      if (!valid.success) {
        this.contractViolations.push({ what: `event ${e.type}`, issues: valid.error.message });
        rejected.push({ index, id: e.id, code: 'invalid_event', message: valid.error.message });
      } else if (this.rejectIds.has(e.id)) {
        rejected.push({ index, id: e.id, code: 'invalid_event', message: 'rejected by test' });
      } else if (!this.events.some((x) => x.id === e.id)) {
        this.events.push(e);
        accepted++;
      } else accepted++;
    });
    json(res, 202, { accepted, rejected });
  }

  private evaluate(res: ServerResponse, body: Record<string, unknown>): void {
    const mode = (body.mode as Mode) ?? 'monitor';
    const policyDecision = this.decide(body);
    const decision: GuardDecision = {
      evaluationId: newId(),
      mode,
      policyDecision,
      effectiveDecision: effectiveDecision(policyDecision, mode),
      matchedGuardrails:
        policyDecision === 'allow'
          ? []
          : [
              {
                policyId: 'pol_1',
                name: `test-${policyDecision}`,
                version: 1,
                decision: policyDecision,
                reason: 'test rule',
              },
            ],
      wouldBlock: policyDecision === 'block',
      wouldRequireApproval: policyDecision === 'require_approval',
      evaluatedAt: new Date().toISOString(),
    };
    if (mode === 'enforce' && policyDecision === 'require_approval' && body.dryRun !== true) {
      const plan = this.approvalPlan;
      const now = Date.now();
      const approval: Approval = {
        id: `apr_${this.approvals.size + 1}`,
        status: 'pending',
        evaluationId: decision.evaluationId,
        agentId: this.agentId,
        sessionId: (body.sessionId as string) ?? null,
        toolName: ((body.tool as { name?: string }) ?? {}).name ?? null,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + (plan.expiresInSeconds ?? 60) * 1000).toISOString(),
        decidedAt: null,
        decidedBy: null,
        comment: null,
        onTimeout: plan.onTimeout ?? 'deny',
      };
      this.approvals.set(approval.id, approval);
      decision.approval = { id: approval.id, status: 'pending', expiresAt: approval.expiresAt };
      if (plan.status !== 'pending') {
        this.timers.push(
          setTimeout(() => {
            approval.status = plan.status;
            approval.decidedAt = new Date().toISOString();
            approval.decidedBy = plan.status === 'expired' ? null : 'alice@example.com';
            approval.comment = plan.status === 'denied' ? 'not today' : null;
            for (const w of this.waiters.get(approval.id) ?? []) w();
            this.waiters.delete(approval.id);
          }, plan.afterMs),
        );
      }
    }
    json(res, 200, decision);
  }

  private async approval(res: ServerResponse, id: string, waitSeconds: number): Promise<void> {
    const approval = this.approvals.get(id);
    if (!approval) return problem(res, 404);
    if (approval.status === 'pending' && waitSeconds > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, waitSeconds * 1000);
        this.timers.push(t);
        const list = this.waiters.get(id) ?? [];
        list.push(() => {
          clearTimeout(t);
          resolve();
        });
        this.waiters.set(id, list);
      });
    }
    json(res, 200, approval);
  }
}

function matches(path: string, pattern: string | RegExp): boolean {
  return typeof pattern === 'string' ? path === pattern : pattern.test(path);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const TITLES: Record<number, [string, string]> = {
  400: ['validation_failed', 'Invalid body'],
  401: ['unauthenticated', 'Missing or unknown API key'],
  403: ['forbidden', 'Forbidden'],
  404: ['not_found', 'Not found'],
  429: ['rate_limited', 'Too many requests'],
  500: ['internal', 'Internal error'],
  503: ['event_log_unavailable', 'Event log unavailable'],
};

function problem(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  const [code, title] = TITLES[status] ?? ['internal', 'Error'];
  const body: Record<string, unknown> = {
    type: `https://agentwarden.dev/problems/${code}`,
    title,
    status,
    code,
    detail: title,
  };
  if (status === 400) body.errors = [{ path: 'events.0.data', message: 'bad' }];
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify(body));
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Resolves when `cond()` is true, polling every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(cond: () => boolean, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('waitFor timed out');
    await delay(10);
  }
}
