import type { ReactNode } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { duration } from '../lib/format';
import { tokens, usd, type UsagePoint } from '../lib/llm';

/**
 * The agent page's charts of LLM usage and activity (recharts, like the guardrail charts): tokens
 * and cost, latency percentiles, event rate, error rate; one point per time bucket.
 */

const COLORS = {
  input: '#4f8fe8',
  output: '#9b6ee8',
  cost: '#3fb27f',
  p50: '#4f8fe8',
  p95: '#e0a526',
  p99: '#e5484d',
  events: 'var(--accent)',
  error: '#e5484d',
} as const;

const tooltipStyle = { background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--text)' };

function tick(iso: string, bucket: 'hour' | 'day'): string {
  const d = new Date(iso);
  const p = (x: number) => String(x).padStart(2, '0');
  return bucket === 'day' ? `${p(d.getMonth() + 1)}-${p(d.getDate())}` : `${p(d.getHours())}:00`;
}

/** One titled chart panel; `testId` names it for the end-to-end tests. */
function Panel({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <section className="card chart-card" data-testid={testId}>
      <div className="label">{title}</div>
      {children}
    </section>
  );
}

function xAxis(bucket: 'hour' | 'day') {
  return (
    <XAxis
      dataKey="time"
      tickFormatter={(t: string) => tick(t, bucket)}
      stroke="var(--muted)"
      fontSize={11}
      minTickGap={24}
    />
  );
}

const label = (t: unknown) => new Date(String(t)).toLocaleString();

/** Stacked input / output tokens (bars, left axis) and cost in USD (line, right axis). */
export function TokensCostChart({ data, bucket }: { data: UsagePoint[]; bucket: 'hour' | 'day' }) {
  return (
    <Panel title="Tokens and cost" testId="chart-tokens-cost">
      <ResponsiveContainer width="100%" height={220}>
        <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          {xAxis(bucket)}
          <YAxis yAxisId="t" stroke="var(--muted)" fontSize={11} tickFormatter={(v: number) => tokens(v)} />
          <YAxis
            yAxisId="c"
            orientation="right"
            stroke="var(--muted)"
            fontSize={11}
            tickFormatter={(v: number) => usd(v)}
          />
          <Tooltip
            contentStyle={tooltipStyle}
            labelFormatter={label}
            formatter={(v, name) => (name === 'cost' ? usd(v as number | null) : tokens(v as number))}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar
            yAxisId="t"
            dataKey="inputTokens"
            name="input tokens"
            stackId="tok"
            fill={COLORS.input}
            isAnimationActive={false}
          />
          <Bar
            yAxisId="t"
            dataKey="outputTokens"
            name="output tokens"
            stackId="tok"
            fill={COLORS.output}
            isAnimationActive={false}
          />
          <Line
            yAxisId="c"
            dataKey="costUsd"
            name="cost"
            stroke={COLORS.cost}
            dot={{ r: 3 }}
            connectNulls
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </Panel>
  );
}

/** LLM latency p50 / p95 / p99 per bucket, ms. */
export function LatencyChart({ data, bucket }: { data: UsagePoint[]; bucket: 'hour' | 'day' }) {
  return (
    <Panel title="LLM latency (p50 / p95 / p99)" testId="chart-latency">
      <ResponsiveContainer width="100%" height={220}>
        <LineChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          {xAxis(bucket)}
          <YAxis stroke="var(--muted)" fontSize={11} tickFormatter={(v: number) => duration(v)} />
          <Tooltip
            contentStyle={tooltipStyle}
            labelFormatter={label}
            formatter={(v) => duration(v as number)}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {(['p50', 'p95', 'p99'] as const).map((k) => (
            <Line
              key={k}
              dataKey={k}
              name={k}
              stroke={COLORS[k]}
              dot={{ r: 3 }}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </Panel>
  );
}

/** Events per bucket. */
export function EventRateChart({ data, bucket }: { data: UsagePoint[]; bucket: 'hour' | 'day' }) {
  return (
    <Panel title={`Events per ${bucket}`} testId="chart-events">
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          {xAxis(bucket)}
          <YAxis stroke="var(--muted)" fontSize={11} allowDecimals={false} />
          <Tooltip contentStyle={tooltipStyle} labelFormatter={label} />
          <Bar dataKey="events" name="events" fill={COLORS.events} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </Panel>
  );
}

/** Failed tool calls and LLM calls per bucket (bars) and their share of all calls (line, %). */
export function ErrorRateChart({ data, bucket }: { data: UsagePoint[]; bucket: 'hour' | 'day' }) {
  return (
    <Panel title="Errors (tool failures, failed LLM calls) and error rate" testId="chart-errors">
      <ResponsiveContainer width="100%" height={220}>
        <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          {xAxis(bucket)}
          <YAxis yAxisId="n" stroke="var(--muted)" fontSize={11} allowDecimals={false} />
          <YAxis
            yAxisId="r"
            orientation="right"
            stroke="var(--muted)"
            fontSize={11}
            unit="%"
            domain={[0, 100]}
          />
          <Tooltip
            contentStyle={tooltipStyle}
            labelFormatter={label}
            formatter={(v, name) => (name === 'error rate' ? `${Number(v).toFixed(1)} %` : String(v))}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar
            yAxisId="n"
            dataKey="toolFailures"
            name="tool failures"
            stackId="e"
            fill="#d9782d"
            isAnimationActive={false}
          />
          <Bar
            yAxisId="n"
            dataKey="llmErrors"
            name="LLM errors"
            stackId="e"
            fill={COLORS.error}
            isAnimationActive={false}
          />
          <Line
            yAxisId="r"
            dataKey="errorRate"
            name="error rate"
            stroke="var(--text)"
            dot={{ r: 3 }}
            connectNulls
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </Panel>
  );
}
