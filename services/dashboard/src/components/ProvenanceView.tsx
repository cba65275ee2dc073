import {
  describeSessionProvenance,
  ORIGIN_TEXT,
  type LinkedProvenance,
  type LinkedSource,
} from '../lib/provenance';
import { Badge } from './ui';

/**
 * An evaluation's provenance (docs/provenance.md): per argument path its origin, tainted /
 * instructed marks and the tool results it came from — each a button that selects that tool
 * result's event in the replay — then what the session has seen. Tainted arguments come first and
 * stand out: they are why a data-flow policy stops a call.
 */
export function ProvenanceView({
  provenance,
  onJump,
}: {
  provenance: LinkedProvenance;
  onJump: (eventId: string) => void;
}) {
  const p = provenance;
  return (
    <div className="provenance" data-testid="provenance">
      {p.arguments.length === 0 ? (
        <div className="muted small">No argument value was described.</div>
      ) : (
        <ul className="prov-args">
          {p.arguments.map((a) => (
            <li
              key={a.path}
              className={a.tainted ? 'prov-arg tainted' : 'prov-arg'}
              data-testid="prov-arg"
              data-path={a.path}
            >
              <div className="row tight">
                <code className="prov-path">arguments.{a.path}</code>
                <Badge
                  tone={a.origin === 'tool' ? 'bad' : a.origin === 'both' ? 'warn' : 'neutral'}
                  title={ORIGIN_TEXT[a.origin].title}
                >
                  {ORIGIN_TEXT[a.origin].label}
                </Badge>
                {a.tainted && (
                  <Badge tone="bad" title="came from tool output and not from the user">
                    tainted
                  </Badge>
                )}
                {a.instructed && (
                  <Badge tone="bad" title="its tool result carried instructions aimed at the model">
                    instructed
                  </Badge>
                )}
              </div>
              {a.sources.length > 0 && (
                <div className="prov-sources small">
                  from{' '}
                  {a.sources.map((s, i) => (
                    <span key={i}>
                      {i > 0 && ', '}
                      <SourceLink source={s} onJump={onJump} />
                    </span>
                  ))}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {p.truncated && (
        <div className="muted small">The client described only the first 64 argument values.</div>
      )}
      <div
        className={p.untrustedInstructions > 0 ? 'prov-session warn small' : 'prov-session muted small'}
        data-testid="prov-session"
      >
        Session: {describeSessionProvenance(p)}
        {p.lastInstruction && (
          <>
            {' '}
            <SourceLink source={p.lastInstruction} onJump={onJump} label="show it" />
          </>
        )}
      </div>
    </div>
  );
}

/** A source: a button selecting its tool result's event, or plain text when that event is not in this session. */
function SourceLink({
  source,
  onJump,
  label,
}: {
  source: LinkedSource;
  onJump: (eventId: string) => void;
  label?: string;
}) {
  const text = label ?? source.toolName;
  const mark = source.instructions ? ' ⚠' : '';
  const title = `${source.toolName}${source.toolCallId ? ` (call ${source.toolCallId})` : ''}${
    source.instructions ? ': its result carried instructions aimed at the model' : ''
  }`;
  if (!source.eventId)
    return (
      <span className="mono" title={`${title} — not among this session's events`}>
        {text}
        {mark}
      </span>
    );
  const id = source.eventId;
  return (
    <button className="link mono" title={title} data-testid="prov-source" onClick={() => onJump(id)}>
      {text}
      {mark}
    </button>
  );
}
