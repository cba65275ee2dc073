import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { can, useMe } from '../api/auth';
import { api } from '../api/client';
import type { Run, Score, ScoreInput } from '../api/types';
import { dateTime } from '../lib/format';
import { Badge, ErrorBox } from './ui';

type DataType = ScoreInput['dataType'];

/** How a score's value reads: booleans as yes / no, numbers as they are, labels as they are. */
function valueText(s: Score): string {
  if (s.dataType === 'boolean') return s.value ? 'yes' : 'no';
  return String(s.value);
}

/** The value typed in the form, as the API wants it; an Error when it is not a value of `dataType`. */
function parseValue(dataType: DataType, text: string): number | boolean | string | Error {
  const t = text.trim();
  if (dataType === 'boolean') return t === 'true';
  if (dataType === 'numeric') {
    const n = Number(t);
    return t === '' || !Number.isFinite(n) ? new Error('value: a number is needed') : n;
  }
  return t === '' ? new Error('value: a label is needed') : t;
}

/**
 * A session's scores (docs/architecture.md#scores): each with its value, source, author and the run
 * it is on; people who may (approver or admin) set one by hand — name, type, value, comment —
 * through `POST /v1/sessions/{id}/scores`, after which the session is read again.
 */
export function ScoresPanel({
  sessionId,
  scores,
  runs,
}: {
  sessionId: string;
  scores: Score[];
  runs: Run[];
}) {
  const { user } = useMe();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [dataType, setDataType] = useState<DataType>('numeric');
  const [valueInput, setValueInput] = useState('');
  const [comment, setComment] = useState('');
  const [formError, setFormError] = useState<Error | null>(null);
  const save = useMutation({
    mutationFn: (body: ScoreInput) =>
      api<Score>(`/v1/sessions/${sessionId}/scores`, { method: 'POST', body }),
    onSuccess: async () => {
      setName('');
      setValueInput('');
      setComment('');
      await qc.invalidateQueries({ queryKey: ['session', sessionId] });
    },
  });
  const runName = (id: string | null) =>
    id ? (runs.find((r) => r.id === id)?.name ?? id.slice(0, 8)) : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    const value = parseValue(dataType, dataType === 'boolean' ? valueInput || 'true' : valueInput);
    if (value instanceof Error) return setFormError(value);
    setFormError(null);
    save.mutate({
      name: name.trim(),
      value,
      dataType,
      source: 'human',
      ...(comment.trim() ? { comment: comment.trim() } : {}),
    });
  }

  return (
    <div className="scores" data-testid="scores">
      <h2>Scores</h2>
      {scores.length === 0 ? (
        <div className="muted small">No scores yet.</div>
      ) : (
        <ul className="items">
          {scores.map((s) => (
            <li key={s.id} className="item score" data-testid="score">
              <div className="row tight">
                <strong>{s.name}</strong>
                <span className="score-value mono">{valueText(s)}</span>
                <Badge tone={s.source === 'human' ? 'info' : 'neutral'}>{s.source}</Badge>
              </div>
              {s.comment && <div className="small">{s.comment}</div>}
              <div className="small muted">
                {runName(s.runId) ? `run ${runName(s.runId)} · ` : ''}
                {s.author} · {dateTime(s.time)}
              </div>
            </li>
          ))}
        </ul>
      )}
      {can(user?.role, 'approver') && (
        <form className="form score-form" onSubmit={submit} aria-label="Set a score">
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
          </label>
          <label>
            Type
            <select
              value={dataType}
              onChange={(e) => {
                setDataType(e.target.value as DataType);
                setValueInput(e.target.value === 'boolean' ? 'true' : '');
              }}
            >
              <option value="numeric">number</option>
              <option value="boolean">yes / no</option>
              <option value="categorical">label</option>
            </select>
          </label>
          <label>
            Value
            {dataType === 'boolean' ? (
              <select value={valueInput || 'true'} onChange={(e) => setValueInput(e.target.value)}>
                <option value="true">yes</option>
                <option value="false">no</option>
              </select>
            ) : (
              <input
                value={valueInput}
                onChange={(e) => setValueInput(e.target.value)}
                inputMode={dataType === 'numeric' ? 'decimal' : 'text'}
                maxLength={200}
                required
              />
            )}
          </label>
          <label>
            Comment
            <input value={comment} onChange={(e) => setComment(e.target.value)} maxLength={2000} />
          </label>
          <button className="btn small primary" type="submit" disabled={save.isPending}>
            Set score
          </button>
          <ErrorBox error={formError ?? save.error} />
        </form>
      )}
    </div>
  );
}
