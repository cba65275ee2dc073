import { useState, type ReactNode } from 'react';
import { ApiError } from '../api/client';
import type { Tone } from '../lib/events';

/** A small coloured label. */
export function Badge({
  tone = 'neutral',
  children,
  title,
}: {
  tone?: Tone;
  children: ReactNode;
  title?: string;
}) {
  return (
    <span className={`badge tone-${tone}`} title={title}>
      {children}
    </span>
  );
}

/** A guard decision as a badge. */
export function DecisionBadge({ decision }: { decision: string | null | undefined }) {
  if (!decision) return <span className="muted">—</span>;
  const tone: Tone =
    decision === 'block' ? 'bad' : decision === 'require_approval' || decision === 'warn' ? 'warn' : 'ok';
  return <Badge tone={tone}>{decision.replace('_', ' ')}</Badge>;
}

/** A session/run status as a badge. */
export function StatusBadge({ status }: { status: string }) {
  const tone: Tone =
    status === 'failed' || status === 'denied' || status === 'expired'
      ? 'bad'
      : status === 'completed' || status === 'succeeded' || status === 'approved'
        ? 'ok'
        : status === 'active' || status === 'pending'
          ? 'info'
          : 'neutral';
  return <Badge tone={tone}>{status}</Badge>;
}

/** Title row of a page. */
export function PageHeader({
  title,
  subtitle,
  actions,
}: {
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="muted">{subtitle}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </header>
  );
}

/** What to do next when there is nothing to show yet. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

/** A failed request, said plainly, with the field errors when there are any. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as Error;
  return (
    <div className="error-box" role="alert">
      <strong>{e instanceof ApiError && e.status === 403 ? 'Not allowed' : 'Something went wrong'}</strong>
      <div>{e.message}</div>
      {e instanceof ApiError && e.errors.length > 0 && (
        <ul>
          {e.errors.map((fe, i) => (
            <li key={i}>
              <code>{fe.path || '(body)'}</code> {fe.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A loading line. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return <div className="loading">{what}…</div>;
}

/** Pretty JSON with a copy button. */
export function JsonView({ value, maxHeight }: { value: unknown; maxHeight?: number }) {
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  const [copied, setCopied] = useState(false);
  return (
    <div className="json-view">
      <button
        className="btn small ghost copy"
        onClick={() => {
          void navigator.clipboard?.writeText(text);
          setCopied(true);
          setTimeout(() => setCopied(false), 1200);
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
      <pre style={maxHeight ? { maxHeight } : undefined}>{text}</pre>
    </div>
  );
}

/** The two lines a newcomer adds to an agent (shown in empty states). */
export function QuickStart() {
  const origin = typeof window === 'undefined' ? 'http://127.0.0.1:7400' : window.location.origin;
  return (
    <div className="quickstart">
      <p>Instrument an agent with the TypeScript client (Python has the same calls in snake_case):</p>
      <pre>
        {`const warden = new WardenClient({ baseUrl: '${origin}', apiKey: process.env.WARDEN_API_KEY, agent: { key: 'my-agent' } });
await warden.withTool({ name: 'send_email', arguments: { to } }, () => sendEmail(to));`}
      </pre>
      <p className="muted">
        No agent at hand? Replay real runs:{' '}
        <code>
          npm run replay -- --api-key &lt;key&gt; ../shared/data/trajectories/tau_bench_airline.jsonl
        </code>
        . An admin creates API keys under <a href="/admin/keys">API keys</a>.
      </p>
    </div>
  );
}

/** Tabs controlled by the caller. */
export function Tabs<T extends string>({
  tabs,
  value,
  onChange,
}: {
  tabs: { id: T; label: ReactNode }[];
  value: T;
  onChange: (v: T) => void;
}) {
  return (
    <div className="tabs" role="tablist">
      {tabs.map((t) => (
        <button
          key={t.id}
          role="tab"
          aria-selected={value === t.id}
          className={value === t.id ? 'tab active' : 'tab'}
          onClick={() => onChange(t.id)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

/** The shield mark (inline SVG: no font needed). */
export function Shield() {
  return (
    <svg className="logo" viewBox="0 0 16 16" width="18" height="18" aria-hidden>
      <path d="M8 1l6 2.5v4C14 11 11.5 14 8 15 4.5 14 2 11 2 7.5v-4z" fill="currentColor" />
    </svg>
  );
}
