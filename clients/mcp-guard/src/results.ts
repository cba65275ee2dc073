import {
  ApprovalDeniedError,
  ApprovalTimeoutError,
  GuardrailBlockedError,
  GuardrailUnavailableError,
  type GuardDecision,
} from '@agent-warden/client';

/** An MCP `CallToolResult` (MCP 2025-06-18 "Tools"): content blocks, and `isError` for a failed call. */
export interface CallToolResult {
  content: Array<{ type: string; text?: string; [k: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [k: string]: unknown;
}

/**
 * The tool result the host gets when Agent Warden stopped a call, or `undefined` for an error that
 * is not a guard outcome. MCP asks that errors a model can act on be tool results with `isError:
 * true` and not JSON-RPC errors (MCP 2025-06-18 "Tools" › "Error handling"), so the model reads
 * why and can tell the user or try something else:
 * - `GuardrailBlockedError` → "Blocked by Agent Warden: <policy>: <reason>; …";
 * - `ApprovalDeniedError` → "… denied by <who>: <comment>" (or cancelled);
 * - `ApprovalTimeoutError` → no decision before the deadline;
 * - `GuardrailUnavailableError` → the service could not be reached (fail closed).
 * Each says the tool was not run. The text names policies and their reasons, never argument values.
 */
export function guardErrorResult(error: unknown, toolName: string): CallToolResult | undefined {
  let text: string;
  if (error instanceof GuardrailBlockedError) {
    text = `Blocked by Agent Warden: the tool "${toolName}" was not run. ${reasons(error.decision)}`;
  } else if (error instanceof ApprovalDeniedError) {
    const a = error.approval;
    const verb = a.status === 'cancelled' ? 'was cancelled' : 'was denied';
    text =
      `Agent Warden: the call to "${toolName}" needed a person's approval, which ${verb}` +
      `${a.decidedBy ? ` by ${a.decidedBy}` : ''}${a.comment ? `: ${a.comment}` : ''}. The tool was not run. ` +
      reasons(error.decision);
  } else if (error instanceof ApprovalTimeoutError) {
    text =
      `Agent Warden: the call to "${toolName}" needed a person's approval and none came before the deadline. ` +
      `The tool was not run. ${reasons(error.decision)}`;
  } else if (error instanceof GuardrailUnavailableError) {
    text =
      `Agent Warden could not be reached to check the call to "${toolName}", and this proxy fails closed: ` +
      'the tool was not run. Try again later.';
  } else {
    return undefined;
  }
  return { content: [{ type: 'text', text: text.trim() }], isError: true };
}

/** `Policy "<name>": <reason>.` for each matched guardrail, or '' when none matched. */
function reasons(decision: GuardDecision): string {
  return decision.matchedGuardrails
    .map((g) => `Policy "${g.name}": ${g.reason.replace(/\.$/, '')}.`)
    .join(' ');
}

/**
 * The text of a tool result's text blocks joined by newlines (≤ 10,000 characters), or a fixed
 * phrase when it has none: what `agent.tool.failed` records as the error message of a result
 * with `isError: true`.
 */
export function resultText(result: CallToolResult): string {
  const text = (Array.isArray(result.content) ? result.content : [])
    .filter((c) => c && c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join('\n');
  return (text || 'the tool reported an error without text').slice(0, 10_000);
}
