/** @agent-warden/projector — consumes the event log and writes runs, sessions and events to PostgreSQL. */
export { start, startProjection, type RunningProjector } from './start';
export { ProjectorConfig, ReadinessEnv } from './config';
export {
  readinessAfterWrite,
  scheduleReadiness,
  touchedSessions,
  readinessKey,
  type ReadinessDelays,
  type TouchedSession,
} from './readiness';
export { createProjectionHandler, type AfterWrite } from './handler';
export { writeBatch, type WriteResult, type ProjectedEvent } from '@agent-warden/db';
export { decodeRecord } from './decode';
