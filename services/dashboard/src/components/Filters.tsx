import { isoToLocalInput, localInputToIso } from '../lib/format';
import type { Agent } from '../api/types';

/** A filter `<select>`: `allLabel` (no filter) then each option; an empty choice clears the filter. */
export function ChoiceSelect({
  label,
  allLabel,
  value,
  options,
  format = (o) => o,
  onChange,
}: {
  label: string;
  allLabel: string;
  value: string | undefined;
  options: readonly string[];
  format?: (option: string) => string;
  onChange: (value: string | undefined) => void;
}) {
  return (
    <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
      <option value="">{allLabel}</option>
      {options.map((o) => (
        <option key={o} value={o}>
          {format(o)}
        </option>
      ))}
    </select>
  );
}

/** The agent filter: each of `agents` (the project's, while loading undefined) by name or key. */
export function AgentSelect({
  agents,
  value,
  onChange,
}: {
  agents: Agent[] | undefined;
  value: string | undefined;
  onChange: (agentId: string | undefined) => void;
}) {
  return (
    <select aria-label="Agent" value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
      <option value="">All agents</option>
      {agents?.map((a) => (
        <option key={a.id} value={a.id}>
          {a.name ?? a.key}
        </option>
      ))}
    </select>
  );
}

/** `From` and `To` local date-time inputs over ISO 8601 values (`from` inclusive, `to` exclusive). */
export function TimeRangeInputs({
  from,
  to,
  onChange,
}: {
  from: string | undefined;
  to: string | undefined;
  onChange: (bound: 'from' | 'to', iso: string | undefined) => void;
}) {
  return (
    <>
      <label className="inline">
        From
        <input
          type="datetime-local"
          value={isoToLocalInput(from)}
          onChange={(e) => onChange('from', localInputToIso(e.target.value))}
        />
      </label>
      <label className="inline">
        To
        <input
          type="datetime-local"
          value={isoToLocalInput(to)}
          onChange={(e) => onChange('to', localInputToIso(e.target.value))}
        />
      </label>
    </>
  );
}

/** The `Clear` button of a filter bar, shown while a filter is set. */
export function ClearFilters({ show, onClear }: { show: boolean; onClear: () => void }) {
  if (!show) return null;
  return (
    <button className="btn ghost small" onClick={onClear}>
      Clear
    </button>
  );
}
