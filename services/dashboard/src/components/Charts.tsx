import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { DecisionBucket, TopPolicy } from '../lib/stats';

/** Colours of the decisions (same in light and dark). */
export const DECISION_COLORS = {
  allow: '#3fb27f',
  warn: '#e0a526',
  require_approval: '#d9782d',
  block: '#e5484d',
} as const;

function tick(iso: string, spanMs: number): string {
  const d = new Date(iso);
  const p = (x: number) => String(x).padStart(2, '0');
  return spanMs > 2 * 86_400_000
    ? `${p(d.getMonth() + 1)}-${p(d.getDate())}`
    : `${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** Stacked bars: guard decisions per time bucket. */
export function DecisionsChart({ data }: { data: DecisionBucket[] }) {
  const span =
    data.length > 1 ? new Date(data[data.length - 1]!.time).getTime() - new Date(data[0]!.time).getTime() : 0;
  return (
    <ResponsiveContainer width="100%" height={240}>
      <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
        <XAxis
          dataKey="time"
          tickFormatter={(t: string) => tick(t, span)}
          stroke="var(--muted)"
          fontSize={11}
          minTickGap={24}
        />
        <YAxis stroke="var(--muted)" fontSize={11} allowDecimals={false} />
        <Tooltip
          contentStyle={{
            background: 'var(--panel)',
            border: '1px solid var(--border)',
            color: 'var(--text)',
          }}
          labelFormatter={(t) => new Date(String(t)).toLocaleString()}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {(Object.keys(DECISION_COLORS) as (keyof typeof DECISION_COLORS)[]).map((d) => (
          <Bar
            key={d}
            dataKey={d}
            name={d.replace('_', ' ')}
            stackId="d"
            fill={DECISION_COLORS[d]}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}

/** Horizontal bars: the policies that matched most. */
export function TopPoliciesChart({ data }: { data: TopPolicy[] }) {
  const rows = data.slice(0, 8);
  return (
    <ResponsiveContainer width="100%" height={Math.max(120, rows.length * 30 + 30)}>
      <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" horizontal={false} />
        <XAxis type="number" stroke="var(--muted)" fontSize={11} allowDecimals={false} />
        <YAxis type="category" dataKey="name" width={160} stroke="var(--muted)" fontSize={11} />
        <Tooltip
          contentStyle={{
            background: 'var(--panel)',
            border: '1px solid var(--border)',
            color: 'var(--text)',
          }}
        />
        <Bar dataKey="count" name="matches" fill="var(--accent)" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
