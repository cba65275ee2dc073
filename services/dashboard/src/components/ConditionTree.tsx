import { useEffect, useState } from 'react';
import type { MatchNode, PolicyOperator } from '../api/types';
import { formatValue, isLeaf, parseValue, POLICY_FIELDS, type Operand } from '../lib/policy';
import {
  argumentPathOf,
  fieldHelp,
  ORIGIN_HELP,
  ORIGINS,
  originsOf,
  PROVENANCE_ARGUMENTS,
  withField,
  withOrigins,
} from '../lib/policy-fields';
import { useOperators } from '../lib/policy-operators';

type Path = (string | number)[];

/**
 * Form for a policy's match tree: groups (`all` / `any` / `not`) and leaf conditions
 * (`field op value`). `errors` maps API error paths (`match.all.0.value`) to messages; each is
 * shown next to the node or field it names.
 */
export function ConditionTree({
  node,
  onChange,
  errors,
}: {
  node: MatchNode;
  onChange: (next: MatchNode) => void;
  errors: Map<string, string>;
}) {
  return (
    <div className="cond-tree">
      <NodeEditor
        node={node}
        path={[]}
        onSet={(p, n) => onChange(replace(node, p, n) ?? ({ all: [] as MatchNode[] } as MatchNode))}
        errors={errors}
        root
      />
      <datalist id="policy-fields">
        {POLICY_FIELDS.map((f) => (
          <option key={f} value={f} label={fieldHelp(f)?.text} />
        ))}
        <option value="arguments.command" />
        <option value="arguments.url" />
        <option value="arguments.path" />
        <option value={PROVENANCE_ARGUMENTS} label="where an argument came from: user, tool, both or none" />
      </datalist>
    </div>
  );
}

function replace(root: MatchNode, path: Path, next: MatchNode | null): MatchNode | null {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  const r = root as Record<string, unknown>;
  if ((head === 'all' || head === 'any') && Array.isArray(r[head])) {
    const [i, ...tail] = rest as [number, ...Path];
    const copy = [...(r[head] as MatchNode[])];
    const child = replace(copy[i]!, tail, next);
    if (child === null) copy.splice(i, 1);
    else copy[i] = child;
    return { [head]: copy } as unknown as MatchNode;
  }
  if (head === 'not' && r.not) {
    const child = replace(r.not as MatchNode, rest, next);
    return child === null ? null : ({ not: child } as MatchNode);
  }
  return root;
}

const key = (path: Path) => ['match', ...path].join('.');

function FieldError({ errors, path }: { errors: Map<string, string>; path: Path }) {
  const m = errors.get(key(path));
  return m ? <div className="field-error">{m}</div> : null;
}

function NodeEditor({
  node,
  path,
  onSet,
  errors,
  root,
}: {
  node: MatchNode;
  path: Path;
  onSet: (path: Path, next: MatchNode | null) => void;
  errors: Map<string, string>;
  root?: boolean;
}) {
  const operators = useOperators();
  if (isLeaf(node)) {
    const leaf = node as { field: string; op: string; value?: unknown };
    const operandOf = (op: string): Operand => operators.find((o) => o.name === op)?.operand;
    const current = operators.find((o) => o.name === leaf.op);
    const set = (patch: Partial<typeof leaf>) => onSet(path, { ...leaf, ...patch } as MatchNode);
    const help = fieldHelp(leaf.field);
    const argPath = argumentPathOf(leaf.field);
    return (
      <div className="cond-leaf">
        <div className="cond-fields">
          <input
            aria-label="Field"
            list="policy-fields"
            value={leaf.field}
            placeholder="tool.name or arguments.path"
            onChange={(e) => onSet(path, withField(leaf, e.target.value) as MatchNode)}
            className={errors.has(key([...path, 'field'])) ? 'invalid' : ''}
          />
          <select
            aria-label="Operator"
            value={leaf.op}
            onChange={(e) =>
              set({
                op: e.target.value,
                value: parseValue(operandOf(e.target.value), formatValue(leaf.value)),
              })
            }
          >
            {!current && <option value={leaf.op}>{leaf.op}</option>}
            {operators.map((o) => (
              <option key={o.name} value={o.name} title={`${o.summary} — e.g. ${o.example.text}`}>
                {o.name}
              </option>
            ))}
          </select>
          {argPath !== undefined && (leaf.op === 'eq' || leaf.op === 'in') ? (
            <OriginPicker
              chosen={originsOf(leaf.op, leaf.value)}
              invalid={errors.has(key([...path, 'value']))}
              onChange={(origins) => set(withOrigins(leaf.op, origins))}
            />
          ) : current?.operand === 'flag' ? (
            <select
              aria-label="Value"
              value={String(leaf.value !== false)}
              onChange={(e) => set({ value: e.target.value === 'true' })}
            >
              <option value="true">is present</option>
              <option value="false">is missing</option>
            </select>
          ) : (
            <ValueInput
              operator={current}
              count={help?.kind === 'count'}
              value={leaf.value}
              invalid={errors.has(key([...path, 'value']))}
              onChange={(value) => set({ value })}
            />
          )}
          {!root && (
            <button
              className="btn ghost small"
              aria-label="Remove condition"
              onClick={() => onSet(path, null)}
            >
              ✕
            </button>
          )}
        </div>
        {argPath !== undefined && (
          <label className="inline small cond-arg-path">
            Argument path <span className="mono muted">{PROVENANCE_ARGUMENTS}</span>
            <input
              aria-label="Argument path"
              value={argPath}
              placeholder="recipient or recipients.0"
              onChange={(e) => set({ field: PROVENANCE_ARGUMENTS + e.target.value })}
              className={errors.has(key([...path, 'field'])) ? 'invalid mono' : 'mono'}
            />
          </label>
        )}
        {help && (
          <div className="muted small field-help" data-testid="field-help">
            {help.text}
          </div>
        )}
        <FieldError errors={errors} path={path} />
        <FieldError errors={errors} path={[...path, 'field']} />
        <FieldError errors={errors} path={[...path, 'op']} />
        <FieldError errors={errors} path={[...path, 'value']} />
      </div>
    );
  }
  const kind: 'all' | 'any' | 'not' = 'all' in node ? 'all' : 'any' in node ? 'any' : 'not';
  const children: MatchNode[] =
    kind === 'not' ? [(node as { not: MatchNode }).not] : ((node as Record<string, MatchNode[]>)[kind] ?? []);
  const changeKind = (k: 'all' | 'any' | 'not') => {
    if (k === kind) return;
    if (k === 'not')
      onSet(path, { not: children[0] ?? { field: 'tool.name', op: 'eq', value: '' } } as MatchNode);
    else onSet(path, { [k]: children } as unknown as MatchNode);
  };
  const add = (child: MatchNode) => {
    if (kind === 'not') return;
    onSet(path, { [kind]: [...children, child] } as unknown as MatchNode);
  };
  return (
    <div className={`cond-group kind-${kind}`}>
      <div className="cond-group-head">
        <select
          aria-label="Group"
          value={kind}
          onChange={(e) => changeKind(e.target.value as 'all' | 'any' | 'not')}
        >
          <option value="all">all of</option>
          <option value="any">any of</option>
          <option value="not">not</option>
        </select>
        {kind !== 'not' && (
          <>
            <button
              className="btn ghost small"
              onClick={() => add({ field: 'tool.name', op: 'eq', value: '' } as MatchNode)}
            >
              + condition
            </button>
            <button
              className="btn ghost small"
              onClick={() => add({ any: [{ field: 'tool.name', op: 'eq', value: '' }] } as MatchNode)}
            >
              + group
            </button>
          </>
        )}
        {!root && (
          <button className="btn ghost small" aria-label="Remove group" onClick={() => onSet(path, null)}>
            ✕
          </button>
        )}
      </div>
      <FieldError errors={errors} path={path} />
      <FieldError errors={errors} path={[...path, kind]} />
      <div className="cond-children">
        {children.map((c, i) => (
          <NodeEditor
            key={i}
            node={c}
            path={kind === 'not' ? [...path, 'not'] : [...path, kind, i]}
            onSet={onSet}
            errors={errors}
          />
        ))}
      </div>
    </div>
  );
}

/** The origins of a `provenance.arguments.<path>` condition, one checkbox each. */
function OriginPicker({
  chosen,
  invalid,
  onChange,
}: {
  chosen: readonly string[];
  invalid: boolean;
  onChange: (origins: (typeof ORIGINS)[number][]) => void;
}) {
  return (
    <div
      className={invalid ? 'origin-picker invalid grow' : 'origin-picker grow'}
      role="group"
      aria-label="Origins"
    >
      {ORIGINS.map((o) => (
        <label key={o} className="inline check small" title={ORIGIN_HELP[o]}>
          <input
            type="checkbox"
            checked={chosen.includes(o)}
            onChange={(e) =>
              onChange(
                e.target.checked
                  ? [...ORIGINS.filter((x) => chosen.includes(x)), o]
                  : ORIGINS.filter((x) => x !== o && chosen.includes(x)),
              )
            }
          />{' '}
          {o}
        </label>
      ))}
    </div>
  );
}

/**
 * The value text as typed (kept while typing), parsed on each change. `count`: the field is a
 * count (`provenance.tainted` …), so a single value is a number input (≥ 0).
 */
function ValueInput({
  operator,
  count,
  value,
  invalid,
  onChange,
}: {
  operator: PolicyOperator | undefined;
  count?: boolean;
  value: unknown;
  invalid: boolean;
  onChange: (v: unknown) => void;
}) {
  const operand = operator?.operand;
  const [text, setText] = useState(formatValue(value));
  useEffect(() => {
    // Follow outside changes (JSON view, reset) but not the echo of our own typing.
    if (JSON.stringify(parseValue(operand, text)) !== JSON.stringify(value)) setText(formatValue(value));
  }, [value, operand]);
  const example = operator?.example.value;
  return (
    <input
      aria-label="Value"
      {...(count && (operand === 'number' || operand === 'scalar')
        ? { type: 'number', min: 0, step: 1 }
        : {})}
      value={text}
      placeholder={
        Array.isArray(example) ? example.join(', ') : example === undefined ? 'value' : formatValue(example)
      }
      onChange={(e) => {
        setText(e.target.value);
        onChange(parseValue(operand, e.target.value));
      }}
      className={invalid ? 'invalid grow' : 'grow'}
    />
  );
}
