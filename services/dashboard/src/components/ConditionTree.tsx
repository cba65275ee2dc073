import { useEffect, useState } from 'react';
import type { MatchNode } from '../api/types';
import { formatValue, isLeaf, OPS, parseValue, POLICY_FIELDS } from '../lib/policy';

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
          <option key={f} value={f} />
        ))}
        <option value="arguments.command" />
        <option value="arguments.url" />
        <option value="arguments.path" />
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
  if (isLeaf(node)) {
    const leaf = node as { field: string; op: string; value?: unknown };
    const set = (patch: Partial<typeof leaf>) => onSet(path, { ...leaf, ...patch } as MatchNode);
    return (
      <div className="cond-leaf">
        <div className="cond-fields">
          <input
            aria-label="Field"
            list="policy-fields"
            value={leaf.field}
            placeholder="tool.name or arguments.path"
            onChange={(e) => set({ field: e.target.value })}
            className={errors.has(key([...path, 'field'])) ? 'invalid' : ''}
          />
          <select
            aria-label="Operator"
            value={leaf.op}
            onChange={(e) =>
              set({ op: e.target.value, value: parseValue(e.target.value, formatValue(leaf.value)) })
            }
          >
            {OPS.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
          {leaf.op === 'exists' ? (
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
              op={leaf.op}
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

/** The value text as typed (kept while typing), parsed on each change. */
function ValueInput({
  op,
  value,
  invalid,
  onChange,
}: {
  op: string;
  value: unknown;
  invalid: boolean;
  onChange: (v: unknown) => void;
}) {
  const [text, setText] = useState(formatValue(value));
  useEffect(() => {
    // Follow outside changes (JSON view, reset) but not the echo of our own typing.
    if (JSON.stringify(parseValue(op, text)) !== JSON.stringify(value)) setText(formatValue(value));
  }, [value, op]);
  return (
    <input
      aria-label="Value"
      value={text}
      placeholder={op === 'in' ? 'a, b, c' : op === 'regex' ? 'rm\\s+-rf' : 'value'}
      onChange={(e) => {
        setText(e.target.value);
        onChange(parseValue(op, e.target.value));
      }}
      className={invalid ? 'invalid grow' : 'grow'}
    />
  );
}
