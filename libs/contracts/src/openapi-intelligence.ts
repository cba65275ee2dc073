import { z } from 'zod';
import { Uuid } from './common';
import {
  FailedIntelligenceJob,
  FailedIntelligenceJobsQuery,
  IntelligenceJobAccepted,
  IntelligenceVersionQuery,
  IntelligenceVersionView,
  RecommendationDecisionRequest,
  RecommendationListQuery,
  RecommendationView,
  SessionIntelligenceView,
} from './intelligence';
import { Page } from './read';
import { json, jsonBody, keyOrCookie, keyOrCookieErrors, problem } from './openapi-helpers';

const sessionParam = { path: z.object({ sessionId: Uuid }) };
const noQueue = {
  '503': problem('No job queue is configured (REDIS_URL), or it cannot take the job; retry'),
};

/**
 * Runtime intelligence of a session and the guardrail recommendations (docs/architecture.md#runtime-intelligence,
 * services/api README). Reads need the read capability; regeneration, the failed
 * jobs and decisions on recommendations need admin.
 */
export const intelligencePaths = {
  '/v1/sessions/{sessionId}/intelligence': {
    get: {
      summary: "A session's intelligence: the latest version, or `?version=N` (read)",
      security: keyOrCookie,
      requestParams: { ...sessionParam, query: IntelligenceVersionQuery },
      responses: {
        '200': json(SessionIntelligenceView, 'Summary, story timeline, action items and recommendations'),
        ...keyOrCookieErrors,
        '404': problem('Unknown session, no intelligence yet, or no such version'),
      },
    },
    post: {
      summary: 'Regenerate the intelligence: queues a `session-ready` job with reason `manual` (admin)',
      description:
        'The job takes the place of a pending readiness job of the session. Poll `GET …/intelligence/versions` for the new version.',
      security: keyOrCookie,
      requestParams: sessionParam,
      responses: {
        '202': json(IntelligenceJobAccepted, 'The job is queued'),
        ...keyOrCookieErrors,
        '404': problem('Unknown session'),
        ...noQueue,
      },
    },
  },
  '/v1/sessions/{sessionId}/intelligence/versions': {
    get: {
      summary: "Versions of a session's intelligence, newest first, without contents (read)",
      security: keyOrCookie,
      requestParams: sessionParam,
      responses: {
        '200': json(z.object({ items: z.array(IntelligenceVersionView) }), 'Versions'),
        ...keyOrCookieErrors,
        '404': problem('Unknown session'),
      },
    },
  },
  '/v1/intelligence/jobs/failed': {
    get: {
      summary:
        'Intelligence jobs of the project that used up their attempts, as the queue keeps them (admin)',
      security: keyOrCookie,
      requestParams: { query: FailedIntelligenceJobsQuery },
      responses: {
        '200': json(z.object({ items: z.array(FailedIntelligenceJob) }), 'Failed jobs'),
        ...keyOrCookieErrors,
        ...noQueue,
      },
    },
  },
  '/v1/recommendations': {
    get: {
      summary: 'Guardrail recommendations, newest first, by status, kind and session (read)',
      description:
        'Open recommendations come from the latest intelligence version of their session only; decided ones always.',
      security: keyOrCookie,
      requestParams: { query: RecommendationListQuery },
      responses: {
        '200': json(Page(RecommendationView, 'RecommendationPage'), 'A page of recommendations'),
        ...keyOrCookieErrors,
      },
    },
  },
  '/v1/recommendations/{recommendationId}/decision': {
    post: {
      summary:
        'Dismiss a recommendation, or accept it: its policy is created DISABLED and linked (admin); decided once',
      security: keyOrCookie,
      requestParams: { path: z.object({ recommendationId: Uuid }) },
      requestBody: jsonBody(RecommendationDecisionRequest),
      responses: {
        '200': json(RecommendationView, 'The decided recommendation'),
        ...keyOrCookieErrors,
        '404': problem('Unknown recommendation'),
        '409': problem('Already decided; `detail` names its status'),
      },
    },
  },
};
