import type { RiskLevel, ToolOptions } from '@agent-warden/client';

/** MCP tool annotations (MCP 2025-06-18 "Tool annotations"): hints, not guarantees. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What the proxy learnt about the server it guards, from `initialize`. */
export interface ServerIdentity {
  /** `serverInfo.name`, e.g. `secure-filesystem-server`. */
  name: string;
  /** `serverInfo.version`. */
  version?: string;
}

/**
 * The annotations of each tool, by name, as last listed by the server (`tools/list` results are
 * read on their way to the host; a `notifications/tools/list_changed` does not clear them, the
 * host's next `tools/list` refreshes them).
 */
export class ToolIndex {
  private readonly byName = new Map<string, ToolAnnotations>();

  /** Records the tools of one `tools/list` result (`{ tools: [{ name, annotations? }] }`); ignores anything else. */
  addListResult(result: unknown): void {
    const tools = (result as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools)) return;
    for (const t of tools) {
      if (!t || typeof t !== 'object' || typeof (t as { name?: unknown }).name !== 'string') continue;
      const a = (t as { annotations?: unknown }).annotations;
      this.byName.set((t as { name: string }).name, a && typeof a === 'object' ? (a as ToolAnnotations) : {});
    }
  }

  /** The tool's annotations, `undefined` when the server never listed it. */
  annotations(name: string): ToolAnnotations | undefined {
    return this.byName.get(name);
  }
}

/**
 * The risk level a tool's annotations suggest: `readOnlyHint: true` → `low`, `destructiveHint:
 * true` → `high`, another listed tool → `medium`; `undefined` when the tool was never listed or has
 * no annotations (policies then see no `riskLevel`, as for any call that states none). MCP says
 * annotations come from the server and must not be trusted for security decisions on their own: a
 * policy should name tools it cares about, and use `riskLevel` as a default net
 * (docs/decisions.md "The MCP guard maps tool annotations to risk levels").
 */
export function riskFromAnnotations(a: ToolAnnotations | undefined): RiskLevel | undefined {
  if (!a || Object.keys(a).length === 0) return undefined;
  if (a.readOnlyHint === true) return 'low';
  if (a.destructiveHint === true) return 'high';
  return 'medium';
}

/**
 * Maps the params of an MCP `tools/call` (`{ name, arguments?, _meta? }`) to the client's
 * `withTool` options: the tool name as is, the arguments object as is (an absent or non-object
 * `arguments` becomes `{}`), the risk level from the tool's annotations, and the resource
 * `{ type: 'mcp_server', id: <server name>, environment? }` that policies can match
 * (`resource.type`, `resource.id`, `resource.environment`; docs/architecture.md#guardrail-policies).
 * `toolCallId` is left to the client (a new UUIDv7 per call: MCP request ids are not unique
 * across sessions).
 */
export function toolCallOptions(
  params: unknown,
  context: { tools: ToolIndex; server?: ServerIdentity; environment?: string },
): ToolOptions {
  const p = (params && typeof params === 'object' ? params : {}) as { name?: unknown; arguments?: unknown };
  const name = typeof p.name === 'string' && p.name !== '' ? p.name : 'unnamed';
  const args =
    p.arguments && typeof p.arguments === 'object' && !Array.isArray(p.arguments)
      ? (p.arguments as Record<string, unknown>)
      : {};
  const riskLevel = riskFromAnnotations(context.tools.annotations(name));
  const resource = {
    type: 'mcp_server',
    ...(context.server?.name ? { id: context.server.name } : {}),
    ...(context.environment ? { environment: context.environment } : {}),
  };
  return { name, arguments: args, ...(riskLevel ? { riskLevel } : {}), resource };
}
