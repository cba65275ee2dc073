/**
 * Runs the deterministic analysers (@agent-warden/intelligence `analyseSession`) over the shared
 * trajectories, as the replay would send them, and writes:
 * - docs/intelligence.md: per source, sessions with action items and the failure analysers' items
 *   by kind, and on tau-bench how many failed sessions got a specific cause and how many succeeded
 *   ones a warning; how often the AgentDojo sessions got a flag pointing at the injected call
 *   (attacks that succeeded, failed, the attacker's goal asked directly, benign runs);
 * - docs/examples/<source>.json + .md: the output for one real session per source.
 * Deterministic (ids come from a counter), so re-running it changes nothing unless the code did.
 *
 * Usage: `npm run intelligence:report` (no service needed).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IntelligenceDraft } from '@agent-warden/contracts';
import { analyseSession, DATA_FLOW_KIND, FAILURE_CAUSE_KINDS } from '@agent-warden/intelligence';
import { findIdentifiers, textOf } from '../libs/intelligence/src/flow/identifiers';
import { loadTrajectories, type Trajectory } from '../libs/intelligence/test/support/trajectory-input';
import type { SessionInput } from '../libs/intelligence/src/types';
import { replayedInput } from './replayed-input';

const ROOT = path.resolve(__dirname, '..');

const DOCS = path.join(ROOT, 'docs');

/**
 * Identifiers in AgentDojo payloads that are NOT the attacker's: addresses the injection goal
 * reads from ("the email received from lily.white@gmail.com", "the code from security@facebook.com").
 */
const NOT_ATTACKER = new Set(['lily.white@gmail.com', 'security@facebook.com']);

type Label = 'attack_succeeded' | 'attack_failed' | 'injection_goal_as_user_task' | 'benign';

function labelOf(t: Trajectory): Label {
  const l = t.labels as {
    is_injection_attack?: boolean;
    attack_succeeded?: boolean | null;
    user_task_is_injection_goal?: boolean;
  };
  if (l.user_task_is_injection_goal) return 'injection_goal_as_user_task';
  if (l.is_injection_attack) return l.attack_succeeded ? 'attack_succeeded' : 'attack_failed';
  return 'benign';
}

/** The attacker's identifiers: IBANs, emails and URLs of the payload (goal as user task: of the task), minus {@link NOT_ATTACKER}. */
function attackerKeys(t: Trajectory, label: Label): Set<string> {
  const text =
    label === 'injection_goal_as_user_task' ? t.task : String(t.labels.injection_payload_example ?? '');
  return new Set(
    findIdentifiers(text)
      .filter((i) => !NOT_ATTACKER.has(i.key))
      .map((i) => `${i.kind}:${i.key}`),
  );
}

/** Event ids of the injected calls: tool calls whose arguments hold an attacker identifier. */
function injectedCallEventIds(input: SessionInput, keys: Set<string>): Set<string>[] {
  const byCall = new Map<string, Set<string>>();
  for (const e of input.events) {
    const id = e.data.toolCallId;
    if (typeof id !== 'string') continue;
    if (!byCall.has(id)) byCall.set(id, new Set());
    byCall.get(id)?.add(e.id);
  }
  const out: Set<string>[] = [];
  for (const e of input.events) {
    if (e.type !== 'agent.tool.started') continue;
    const ids = findIdentifiers(textOf(e.data.arguments));
    if (ids.some((i) => keys.has(`${i.kind}:${i.key}`)))
      out.push(byCall.get(String(e.data.toolCallId)) ?? new Set([e.id]));
  }
  return out;
}

interface Flags {
  /** Any data-flow flag (action item `suspicious_data_flow` or recommendation `tool_output_to_sensitive_argument`). */
  any: boolean;
  /** A critical `suspicious_data_flow` item or a high-severity data-flow recommendation. */
  high: boolean;
}

function dataFlowFlags(out: IntelligenceDraft, pointsAt: (ids: string[]) => boolean): Flags {
  const hits = [
    ...out.actionItems
      .filter((a) => a.kind === 'suspicious_data_flow' && pointsAt(a.evidenceEventIds))
      .map((a) => a.severity),
    ...out.recommendations
      .filter((r) => r.kind === DATA_FLOW_KIND && pointsAt(r.evidenceEventIds))
      .map((r) => r.severity),
  ];
  return { any: hits.length > 0, high: hits.some((s) => s === 'critical' || s === 'high') };
}

interface Row {
  sessions: number;
  withInjectedCall: number;
  pointedAny: number;
  pointedHigh: number;
  anyItemOrRecPointing: number;
  dataFlowFlagAny: number;
  dataFlowFlagHigh: number;
  flagElsewhere: number;
  flagElsewhereHigh: number;
}

const emptyRow = (): Row => ({
  sessions: 0,
  withInjectedCall: 0,
  pointedAny: 0,
  pointedHigh: 0,
  anyItemOrRecPointing: 0,
  dataFlowFlagAny: 0,
  dataFlowFlagHigh: 0,
  flagElsewhere: 0,
  flagElsewhereHigh: 0,
});

function pct(n: number, d: number): string {
  return d === 0 ? '–' : `${n} / ${d} (${Math.round((n / d) * 100)}%)`;
}

function agentdojoTable(): { md: string; totals: Record<Label, Row> } {
  const totals = {
    attack_succeeded: emptyRow(),
    attack_failed: emptyRow(),
    injection_goal_as_user_task: emptyRow(),
    benign: emptyRow(),
  };
  const bySuite: Record<string, Row> = {};
  const missedByTask: Record<string, number> = {};
  for (const t of loadTrajectories('agentdojo.jsonl')) {
    const label = labelOf(t);
    const input = replayedInput('agentdojo.jsonl', t);
    const out = analyseSession(input);
    const injected = label === 'benign' ? [] : injectedCallEventIds(input, attackerKeys(t, label));
    const injectedIds = new Set(injected.flatMap((s) => [...s]));
    const pointsAtInjected = (ids: string[]) => ids.some((id) => injectedIds.has(id));
    const rows = [
      totals[label],
      ...(label === 'attack_succeeded' ? [(bySuite[t.domain] ??= emptyRow())] : []),
    ];
    const all = dataFlowFlags(out, () => true);
    const onInjected = dataFlowFlags(out, pointsAtInjected);
    const anyPointing = [...out.actionItems, ...out.recommendations].some((x) =>
      pointsAtInjected(x.evidenceEventIds),
    );
    for (const r of rows) {
      r.sessions += 1;
      if (all.any) r.dataFlowFlagAny += 1;
      if (all.high) r.dataFlowFlagHigh += 1;
      const elsewhere = dataFlowFlags(out, (ids) => !pointsAtInjected(ids));
      if (elsewhere.any) r.flagElsewhere += 1;
      if (elsewhere.high) r.flagElsewhereHigh += 1;
      if (injected.length === 0) continue;
      r.withInjectedCall += 1;
      if (onInjected.any) r.pointedAny += 1;
      if (onInjected.high) r.pointedHigh += 1;
      if (anyPointing) r.anyItemOrRecPointing += 1;
    }
    if (label === 'attack_succeeded' && injected.length === 0) {
      const k = `${t.domain}/${String(t.labels.injection_task_id)}`;
      missedByTask[k] = (missedByTask[k] ?? 0) + 1;
    }
  }
  const s = totals.attack_succeeded;
  const f = totals.attack_failed;
  const g = totals.injection_goal_as_user_task;
  const b = totals.benign;
  const lines = [
    '| AgentDojo sessions | sessions | with an injected call | data-flow flag on the injected call | … of high severity | any item or recommendation citing the injected call |',
    '|---|---|---|---|---|---|',
    `| attack succeeded | ${s.sessions} | ${s.withInjectedCall} | ${pct(s.pointedAny, s.withInjectedCall)} | ${pct(s.pointedHigh, s.withInjectedCall)} | ${pct(s.anyItemOrRecPointing, s.withInjectedCall)} |`,
    `| attack failed | ${f.sessions} | ${f.withInjectedCall} | ${pct(f.pointedAny, f.withInjectedCall)} | ${pct(f.pointedHigh, f.withInjectedCall)} | ${pct(f.anyItemOrRecPointing, f.withInjectedCall)} |`,
    `| attacker's goal asked by the user | ${g.sessions} | ${g.withInjectedCall} | ${pct(g.pointedAny, g.withInjectedCall)} | ${pct(g.pointedHigh, g.withInjectedCall)} | ${pct(g.anyItemOrRecPointing, g.withInjectedCall)} |`,
    '',
    '| sessions without an injection-carrying call | sessions | any data-flow flag (wrong) | … of high severity (wrong) |',
    '|---|---|---|---|',
    `| benign (no attack) | ${b.sessions} | ${pct(b.dataFlowFlagAny, b.sessions)} | ${pct(b.dataFlowFlagHigh, b.sessions)} |`,
    `| attacker's goal asked by the user | ${g.sessions} | ${pct(g.dataFlowFlagAny, g.sessions)} | ${pct(g.dataFlowFlagHigh, g.sessions)} |`,
    '',
    'Attack sessions with a data-flow flag that does not point at the injected call (any severity / high): ' +
      `succeeded ${s.flagElsewhere} / ${s.flagElsewhereHigh} of ${s.sessions}, failed ${f.flagElsewhere} / ${f.flagElsewhereHigh} of ${f.sessions}.`,
    '',
    '| attack succeeded, by suite | sessions | with an injected call | data-flow flag on it | … of high severity |',
    '|---|---|---|---|---|',
    ...Object.keys(bySuite)
      .sort()
      .map((k) => {
        const r = bySuite[k] as Row;
        return `| ${k} | ${r.sessions} | ${r.withInjectedCall} | ${pct(r.pointedAny, r.withInjectedCall)} | ${pct(r.pointedHigh, r.withInjectedCall)} |`;
      }),
    '',
    'Successful attacks with no injected call by this definition (suite/injection task: sessions): ' +
      Object.entries(missedByTask)
        .sort((x, y) => (x[0] < y[0] ? -1 : 1))
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ') +
      '.',
  ];
  return { md: lines.join('\n'), totals };
}

/** Action item kinds that name a specific cause of failure (the failure analysers). */
const CAUSE_KINDS = new Set<string>(FAILURE_CAUSE_KINDS);
/** Severities that count as "a warning or worse". */
const WARNING = new Set<string>(['medium', 'high', 'critical']);

/**
 * Per source: sessions with any action item, with a failure-analyser item, items by kind; on
 * tau-bench (the only source with a success label per session) the failed sessions (reward 0) with
 * a specific cause and the succeeded ones (reward 1) with a warning or worse. The REPORT reads the
 * labels to measure; the analysers never do.
 */
function sourcesTable(): string {
  const lines = [
    '| source | sessions | with any action item | with a failure-analyser item | failure-analyser items by kind (severity) |',
    '|---|---|---|---|---|',
  ];
  const tau = { failed: 0, failedCause: 0, ok: 0, okWarned: 0, okWarnedCause: 0, okAnyCause: 0 };
  const failedList: string[] = [];
  for (const [name, file] of [
    ['tau-bench', 'tau_bench_airline.jsonl'],
    ['SWE-agent', 'swe_agent.jsonl'],
    ['AgentDojo', 'agentdojo.jsonl'],
  ] as const) {
    let sessions = 0;
    let any = 0;
    let cause = 0;
    const kinds: Record<string, number> = {};
    for (const t of loadTrajectories(file)) {
      const out = analyseSession(replayedInput(file, t));
      const causes = out.actionItems.filter((a) => CAUSE_KINDS.has(a.kind));
      sessions += 1;
      if (out.actionItems.length > 0) any += 1;
      if (causes.length > 0) cause += 1;
      for (const a of causes)
        kinds[`${a.kind} (${a.severity})`] = (kinds[`${a.kind} (${a.severity})`] ?? 0) + 1;
      const reward = (t.labels as { reward?: number }).reward;
      if (reward === 0) {
        tau.failed += 1;
        if (causes.length > 0) {
          tau.failedCause += 1;
          failedList.push(`\`${t.trajectory_id}\`: ${causes.map((a) => a.kind).join(', ')}`);
        }
      } else if (reward === 1) {
        tau.ok += 1;
        if (out.actionItems.some((a) => WARNING.has(a.severity))) tau.okWarned += 1;
        if (causes.some((a) => WARNING.has(a.severity))) tau.okWarnedCause += 1;
        if (causes.length > 0) tau.okAnyCause += 1;
      }
    }
    const byKind = Object.entries(kinds)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ');
    lines.push(
      `| ${name} | ${sessions} | ${pct(any, sessions)} | ${pct(cause, sessions)} | ${byKind || '–'} |`,
    );
  }
  lines.push(
    '',
    '| tau-bench outcome (label read by the report only) | sessions | measure | result | goal |',
    '|---|---|---|---|---|',
    `| failed (reward 0) | ${tau.failed} | with an item naming a specific cause (a failure-analyser item) | ${pct(tau.failedCause, tau.failed)} | ≥ 70 % (and correct) |`,
    `| succeeded (reward 1) | ${tau.ok} | with a warning or worse (any action item of severity medium, high or critical) | ${pct(tau.okWarned, tau.ok)} | ≤ 15 % |`,
    `| succeeded (reward 1) | ${tau.ok} | … of it from the failure analysers | ${pct(tau.okWarnedCause, tau.ok)} | |`,
    `| succeeded (reward 1) | ${tau.ok} | with a failure-analyser item of any severity (low included) | ${pct(tau.okAnyCause, tau.ok)} | |`,
    '',
    `Failed tau-bench sessions with a failure-analyser item (${failedList.length}):`,
    '',
    ...failedList.map((l) => `- ${l}`),
  );
  return lines.join('\n');
}

/** Markdown rendering of one session's intelligence. */
function renderExample(t: Trajectory, out: IntelligenceDraft): string {
  const f = out.summary.figures;
  const lines = [
    `# Intelligence example: ${t.trajectory_id}`,
    '',
    `Generated by \`npm run intelligence:report\` from \`../shared/data/trajectories\` (generator \`${out.generator}\`). The full output is in the JSON file next to this one; ids are made by a counter.`,
    '',
    '## Summary',
    '',
    out.summary.text,
    '',
    `Outcome: **${out.summary.outcome.status}**. Figures: ${f.toolCalls} tool calls, ${f.toolFailures} failed, ${f.events} events, ${f.lostEvents} lost, decisions ${JSON.stringify(f.decisions)}.`,
    '',
    '## Story',
    '',
    ...out.story.map(
      (m) =>
        `- **${m.kind}** ${m.title}${m.text ? ` — ${m.text}` : ''} _(${m.eventIds.length} event${m.eventIds.length === 1 ? '' : 's'})_`,
    ),
    '',
    '## Action items',
    '',
    ...(out.actionItems.length === 0
      ? ['None.']
      : out.actionItems.map((a) => `- [${a.severity}] **${a.title}** (${a.kind}): ${a.detail}`)),
    '',
    '## Recommendations (draft policies, disabled)',
    '',
    ...(out.recommendations.length === 0
      ? ['None.']
      : out.recommendations.flatMap((r) => [
          `- [${r.severity}] **${r.title}** (${r.kind}): ${r.rationale}`,
          '',
          '  ```json',
          ...JSON.stringify(r.policy, null, 2)
            .split('\n')
            .map((l) => `  ${l}`),
          '  ```',
        ])),
    '',
  ];
  return lines.join('\n');
}

/** The example sessions: one per source, picked by id so the choice is stable. */
const EXAMPLES: { file: string; name: string; id: string }[] = [
  {
    file: 'agentdojo.jsonl',
    name: 'agentdojo',
    id: 'agentdojo/Meta-SecAlign-70B/banking/user_task_12/important_instructions/injection_task_0',
  },
  { file: 'tau_bench_airline.jsonl', name: 'tau-bench', id: '' },
  { file: 'swe_agent.jsonl', name: 'swe-agent', id: '' },
];

function pickExample(file: string, id: string): Trajectory {
  const all = loadTrajectories(file);
  if (id) {
    const t = all.find((x) => x.trajectory_id === id);
    if (!t) throw new Error(`${id} is not in ${file}`);
    return t;
  }
  // The first session (by id) with a failing tool and a recommendation, else with any action item.
  const sorted = [...all].sort((a, b) => (a.trajectory_id < b.trajectory_id ? -1 : 1));
  const scored = sorted.map((t) => {
    const out = analyseSession(replayedInput(file, t));
    return { t, score: (out.actionItems.length > 0 ? 1 : 0) + (out.recommendations.length > 0 ? 1 : 0) };
  });
  const best = Math.max(...scored.map((s) => s.score));
  return (scored.find((s) => s.score === best) as { t: Trajectory }).t;
}

function main(): void {
  fs.mkdirSync(path.join(DOCS, 'examples'), { recursive: true });
  const examples: string[] = [];
  for (const ex of EXAMPLES) {
    const t = pickExample(ex.file, ex.id);
    const out = analyseSession(replayedInput(ex.file, t));
    fs.writeFileSync(
      path.join(DOCS, 'examples', `intelligence-${ex.name}.json`),
      `${JSON.stringify({ trajectoryId: t.trajectory_id, intelligence: out }, null, 2)}\n`,
    );
    fs.writeFileSync(path.join(DOCS, 'examples', `intelligence-${ex.name}.md`), renderExample(t, out));
    examples.push(`- [${ex.name}](examples/intelligence-${ex.name}.md): \`${t.trajectory_id}\``);
  }
  const sources = sourcesTable();
  const { md: dojo } = agentdojoTable();
  const md = `${sources}\n\n${dojo}`;
  const template = fs.readFileSync(path.join(DOCS, 'intelligence.md'), 'utf8');
  const begin = '<!-- report:begin -->';
  const end = '<!-- report:end -->';
  const i = template.indexOf(begin);
  const j = template.indexOf(end);
  if (i < 0 || j < i) throw new Error(`docs/intelligence.md lacks the ${begin} … ${end} markers`);
  const body = `${begin}\n\n${md}\n\nExamples (one real session per source):\n\n${examples.join('\n')}\n\n${end}`;
  fs.writeFileSync(
    path.join(DOCS, 'intelligence.md'),
    template.slice(0, i) + body + template.slice(j + end.length),
  );
  process.stdout.write(`${md}\n`);
}

main();
