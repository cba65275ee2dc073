import type { AgentEvent } from '@agent-warden/contracts';

/** An agent event with its project, ready to store. */
export interface ProjectedEvent {
  projectId: string;
  event: AgentEvent;
}
