import {
  loadTrajectories,
  sequentialIds,
  trajectoryToInput,
  type Trajectory,
} from '../libs/intelligence/test/support/trajectory-input';
import type { SessionInput } from '../libs/intelligence/src/types';
import { agentKeyOf, toolNamesByAgent } from './replay/trajectories';

const toolsByFile = new Map<string, Map<string, string[]>>();

/**
 * The session input of a trajectory as the replay stores it: its events, and the tools its agent
 * version declared — the replay declares every tool the agent's trajectories in `file` called
 * (scripts/replay/trajectories.ts `toolNamesByAgent`). Ids come from a counter, so the same
 * trajectory gives the same input. `file` is a name in the shared trajectories folder.
 */
export function replayedInput(file: string, t: Trajectory): SessionInput {
  let tools = toolsByFile.get(file);
  if (!tools) {
    tools = toolNamesByAgent(loadTrajectories(file));
    toolsByFile.set(file, tools);
  }
  return trajectoryToInput(t, { ids: sequentialIds(), agentTools: tools.get(agentKeyOf(t.agent)) ?? null });
}
