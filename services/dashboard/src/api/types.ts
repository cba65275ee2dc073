/**
 * Wire types the dashboard reads. Types only (erased at build time): the shapes come from
 * `@agent-warden/contracts` so a contract change breaks the dashboard's build, not its users.
 * Shapes the contracts do not hold yet (auth, users, keys, stats) are declared here after the
 * agreed API contract, with every field the page does not strictly need left optional.
 */
import type {
  WebhookDeliveryView,
  WebhookSubscriptionView,
  AgentView,
  AgentVersionView,
  ApprovalInboxItem,
  ApprovalTransitionView,
  ApiKeyView,
  AuthSessionResponse,
  ProjectView,
  SessionUser as SessionUserView,
  UserView,
  AgentDetailView,
  VersionComparisonView,
  SessionListItem,
  BacktestResponse,
  Decision,
  DryRunResponse,
  EventType,
  EventView,
  MatchNode,
  PolicyInput,
  DescribedPolicyVersionView,
  DescribedPolicyView,
  PolicyOperatorView,
  PolicyValidationView,
  RecommendationView,
  ScoreRequest,
  ScoreView,
  RunView,
  SessionDetailView,
  SessionIntelligenceView,
  SessionView,
  EventStatsView,
  ActivityStatsView,
  LlmCallView,
  LlmTotalsView,
  LlmUsageView,
  RetentionView,
} from '@agent-warden/contracts';
import type { z } from 'zod';

export type Agent = z.infer<typeof AgentView>;
export type AgentVersion = z.infer<typeof AgentVersionView>;
export type Session = z.infer<typeof SessionView>;
export type Run = z.infer<typeof RunView>;
export type WardenEvent = z.infer<typeof EventView>;
/** A session with its runs; `?eventsLimit=n` gives its first n events and `eventsNextCursor` for the rest. */
export type SessionDetail = z.infer<typeof SessionDetailView> & {
  eventsNextCursor?: string | null;
};
/**
 * One state change of an approval (`SessionDetail.approvalTransitions`, oldest first): `fromStatus`
 * null for the creation (→ `pending`, actor `gateway`), then decisions (`user:<email>`,
 * `api-key:<id>`) and timeouts (`system:timeout`); `at` is the server's ISO time.
 */
export type ApprovalTransition = ApprovalTransitionView;
/** A score of the session or one of its runs (`SessionDetail.scores`, docs/architecture.md#scores). */
export type Score = ScoreView;
/** The body of `POST /v1/sessions/{id}/scores`. */
export type ScoreInput = z.input<typeof ScoreRequest>;
/** A project's retention window (days, null: forever) and the retention job's last run. */
export type Retention = RetentionView;
export type EventStats = z.infer<typeof EventStatsView>;
/** One stored LLM call (`GET /v1/sessions/{id}/llm-calls`, docs/architecture.md#llm-calls). */
export type LlmCall = LlmCallView;
/** LLM totals of a session (`SessionDetail.llm`, `SessionListItem.llm`). */
export type LlmTotals = LlmTotalsView;
/** `GET /v1/llm/usage`. */
export type LlmUsage = LlmUsageView;
/** `GET /v1/stats/activity`. */
export type ActivityStats = ActivityStatsView;
export type Dry = z.infer<typeof DryRunResponse>;
export type Backtest = BacktestResponse;
/** A stored policy with `rule`, the API's text of its match tree. */
export type PolicyView = DescribedPolicyView;
/** A kept version of a policy, with `rule`. */
export type PolicyVersionView = DescribedPolicyVersionView;
/** One operator of the API's registry (`GET /v1/policy-operators`). */
export type PolicyOperator = PolicyOperatorView;
/** `POST /v1/policies/validate` answer. */
export type PolicyValidation = PolicyValidationView;
export type { Decision, EventType, MatchNode, PolicyInput, RecommendationView, SessionIntelligenceView };

/** Roles of people in a project (docs/architecture.md#auth). */
export type Role = 'viewer' | 'approver' | 'admin';

/** A person of a project as admins list them (`GET /v1/projects/{id}/members`), with their role there. */
export type User = Omit<UserView, 'createdAt' | 'lastLoginAt' | 'disabledAt'> &
  Partial<Pick<UserView, 'createdAt' | 'lastLoginAt' | 'disabledAt'>>;

/** The signed-in person: `projectId` is their current project, `role` their role there (null: no project). */
export type SessionUser = SessionUserView;

/** A project with the signed-in person's role in it. */
export type Project = ProjectView;

/** `GET /v1/auth/me`: the person and every project they belong to. */
export type AuthSession = AuthSessionResponse;

/** An approval as the inbox lists it: the held call (`request`), agent, session and policy. */
export type Approval = ApprovalInboxItem;

/** An API key as listed (`GET /v1/api-keys`); the secret is only in the create answer. */
export type ApiKey = ApiKeyView;

/** Agent detail (`GET /v1/agents/:id`): versions with per-version sessions and decisions. */
export type AgentDetail = AgentDetailView;
/** `GET /v1/agents/{agentId}/compare` (docs/architecture.md#comparing-versions). */
export type VersionComparison = VersionComparisonView;

/** A row of the sessions list (with its blocks and pending approvals). */
export type SessionRow = SessionListItem;

/** A webhook subscription (never its secret) and a row of its delivery log (docs/operations.md#notifications). */
export type WebhookSubscription = WebhookSubscriptionView;
export type WebhookDelivery = WebhookDeliveryView;
