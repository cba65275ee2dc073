/**
 * Wire types the dashboard reads. Types only (erased at build time): the shapes come from
 * `@agent-warden/contracts` so a contract change breaks the dashboard's build, not its users.
 * Shapes the contracts do not hold yet (auth, users, keys, stats) are declared here after the
 * agreed API contract, with every field the page does not strictly need left optional.
 */
import type {
  AgentView,
  AgentVersionView,
  Approval as ApprovalContract,
  BacktestResponse,
  Decision,
  DryRunResponse,
  EventType,
  EventView,
  MatchNode,
  PolicyInput,
  PolicyVersionView,
  PolicyView,
  RecommendationView,
  RunView,
  SessionDetailView,
  SessionIntelligenceView,
  SessionView,
  EventStatsView,
} from '@agent-warden/contracts';
import type { z } from 'zod';

export type Agent = z.infer<typeof AgentView>;
export type AgentVersion = z.infer<typeof AgentVersionView>;
export type Session = z.infer<typeof SessionView>;
export type Run = z.infer<typeof RunView>;
export type WardenEvent = z.infer<typeof EventView>;
export type SessionDetail = z.infer<typeof SessionDetailView> & { approvalTransitions?: unknown[] };
export type EventStats = z.infer<typeof EventStatsView>;
export type Dry = z.infer<typeof DryRunResponse>;
export type Backtest = BacktestResponse;
export type {
  Decision,
  EventType,
  MatchNode,
  PolicyInput,
  PolicyVersionView,
  PolicyView,
  RecommendationView,
  SessionIntelligenceView,
};

/** Roles of people (DESIGN.md "Auth"). */
export type Role = 'viewer' | 'approver' | 'admin';

/** The signed-in person (`GET /v1/auth/me`). */
export interface User {
  id: string;
  email: string;
  name?: string | null;
  role: Role;
  projectId?: string;
  disabled?: boolean;
  createdAt?: string;
  lastLoginAt?: string | null;
}

/** An approval as the inbox lists it: the contract's fields plus the context the list may add. */
export type Approval = z.infer<typeof ApprovalContract> & {
  arguments?: Record<string, unknown> | null;
  agentKey?: string | null;
  agentName?: string | null;
  policyId?: string | null;
  policyName?: string | null;
  policy?: { id?: string; name?: string; version?: number } | null;
  matchedGuardrails?: { policyId: string; name: string; version?: number; reason?: string }[];
  reason?: string | null;
  runId?: string | null;
  toolCallId?: string | null;
};

/** An API key as listed (`GET /v1/api-keys`); the secret is only in the create answer. */
export interface ApiKey {
  id: string;
  name?: string | null;
  prefix?: string | null;
  scopes: string[];
  createdAt: string;
  lastUsedAt?: string | null;
  revokedAt?: string | null;
}

/** Agent detail (`GET /v1/agents/:id`): versions with per-version counts. */
export type AgentDetail = Omit<Agent, 'versions'> & {
  firstSeenAt?: string | null;
  versions: (AgentVersion & {
    sessions?: number;
    sessionCount?: number;
    decisions?: Partial<Record<Decision, number>>;
    firstSeenAt?: string | null;
    lastSeenAt?: string | null;
  })[];
};
