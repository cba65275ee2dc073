import type { SessionFacts, ToolCallFact } from '../facts';
import type { AnalysisEvent } from '../types';
import { findIdentifiers, textOf, type Identifier } from './identifiers';
import { fetchesUrl, injectionSpans, isSensitiveTool } from './tools';

/** Argument names that say where a call sends, pays, publishes or grants something. */
const TARGET_ARGUMENT =
  /(recipient|^to$|^cc$|^bcc$|email|url|link|iban|account|participant|user|target|destination|receiver|address)/i;

/** A sensitive call that used an identifier in its arguments. */
export interface FlowSink {
  call: ToolCallFact;
  /** Dot path of the argument (array positions left out), e.g. `recipient`, `recipients`. */
  path: string;
  /** The argument is an array holding the value (the policy then uses `contains`). */
  inArray: boolean;
  /** The argument's text (the array element for arrays) that holds the value. */
  leafText: string;
  /** The value as written in this argument (case and scheme may differ from the source's). */
  value: string;
  /** The argument names a recipient/target (`recipient`, `url`, `email` …), not message content. */
  target: boolean;
}

/**
 * An identifier that first appeared in a tool's result — not in the user's request or messages,
 * nor in any earlier argument — and later became an argument of a sensitive call.
 */
export interface DataFlow {
  identifier: Identifier;
  /** The call whose result first carried the identifier. */
  source: ToolCallFact;
  /** Its `agent.tool.completed` event. */
  sourceEvent: AnalysisEvent;
  /** The sensitive calls that used it, in order. */
  sinks: FlowSink[];
  /** The source result carries instructions aimed at the model and the value sits in a stretch they govern (see `injectionSpans`): a prompt injection. */
  instructionLike: boolean;
}

/** True when an occurrence of `id` in `text` lies in a stretch governed by instruction-like wording. */
function insideInjection(
  text: string,
  id: Identifier,
  cache: Map<string, [number, number][]>,
  key: string,
): boolean {
  let spans = cache.get(key);
  if (!spans) {
    spans = injectionSpans(text);
    cache.set(key, spans);
  }
  if (spans.length === 0) return false;
  // The spans index the NFKC form of the text (the detector reads that form).
  const lower = text.normalize('NFKC').toLowerCase();
  const needles = [id.value.toLowerCase(), id.key];
  for (const needle of needles) {
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
      if (spans.some(([s, e]) => at >= s && at < e)) return true;
    }
  }
  return false;
}

type Origin =
  { kind: 'trusted' } | { kind: 'argument' } | { kind: 'result'; call: ToolCallFact; event: AnalysisEvent };

function leaves(
  v: unknown,
  path: string[],
  inArray: boolean,
  out: { path: string; text: string; inArray: boolean }[],
): void {
  if (typeof v === 'string') out.push({ path: path.join('.'), text: v, inArray });
  else if (Array.isArray(v)) for (const x of v) leaves(x, path, true, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) leaves(x, [...path, k], false, out);
  }
}

/**
 * Traces identifiers (IBANs, emails, URLs) through the session in sequence order. The user's
 * request (the session's task) and every `user`/`system` message are trusted origins; a tool
 * result is an untrusted origin; a value first seen in an argument has no tool origin. A flow is
 * reported for every identifier of untrusted origin used in the arguments of a sensitive call
 * (for URL-fetching tools, URLs only). Pure and deterministic.
 */
export function findDataFlows(facts: SessionFacts): DataFlow[] {
  const origin = new Map<string, Origin>();
  const remember = (ids: Identifier[], o: Origin) => {
    for (const id of ids) if (!origin.has(`${id.kind}:${id.key}`)) origin.set(`${id.kind}:${id.key}`, o);
  };
  if (facts.task) remember(findIdentifiers(facts.task), { kind: 'trusted' });
  const flows = new Map<string, DataFlow>();
  const spansCache = new Map<string, [number, number][]>();

  for (const e of facts.events) {
    if (e.type === 'agent.message.logged' && (e.data.role === 'user' || e.data.role === 'system')) {
      remember(findIdentifiers(textOf(e.data.content)), { kind: 'trusted' });
      continue;
    }
    if (e.type === 'agent.session.started' || e.type === 'agent.run.started') {
      remember(findIdentifiers(textOf(e.data.inputSummary)), { kind: 'trusted' });
      continue;
    }
    const call =
      typeof e.data.toolCallId === 'string' ? facts.toolCallById.get(e.data.toolCallId) : undefined;
    if (!call) continue;
    if (e.type === 'agent.tool.started') {
      const sensitive = isSensitiveTool(call.toolName);
      const urlOnly = fetchesUrl(call.toolName);
      const found: { path: string; text: string; inArray: boolean }[] = [];
      leaves(call.arguments, [], false, found);
      for (const leaf of found) {
        for (const id of findIdentifiers(leaf.text)) {
          const k = `${id.kind}:${id.key}`;
          const o = origin.get(k);
          if (!o) {
            origin.set(k, { kind: 'argument' });
            continue;
          }
          if (!sensitive || o.kind !== 'result' || (urlOnly && id.kind !== 'url')) continue;
          const flowKey = `${k}|${o.call.toolCallId}`;
          let flow = flows.get(flowKey);
          if (!flow) {
            flow = {
              identifier: id,
              source: o.call,
              sourceEvent: o.event,
              sinks: [],
              instructionLike: insideInjection(textOf(o.call.result), id, spansCache, o.call.toolCallId),
            };
            flows.set(flowKey, flow);
          }
          if (flow.sinks.some((s) => s.call === call && s.path === leaf.path)) continue;
          const last = leaf.path.split('.').pop() ?? '';
          flow.sinks.push({
            call,
            path: leaf.path,
            inArray: leaf.inArray,
            leafText: leaf.text,
            value: id.value,
            target: TARGET_ARGUMENT.test(last),
          });
        }
      }
    } else if (e.type === 'agent.tool.completed') {
      remember(findIdentifiers(textOf(e.data.result)), { kind: 'result', call, event: e });
    }
  }
  return [...flows.values()];
}
