import {
  detectInstructions,
  isUuidV7,
  type InstructionFinding,
  type InstructionSighting,
  type Provenance,
} from '@agent-warden/contracts';
import { errorFields, type Logger } from '../logger';
import { PROVENANCE_BOUNDS } from './bounds';
import { LruMap } from './lru';
import { matchArguments } from './matcher';
import { charLength, normalize } from './normal-form';
import { SourceStore, type StoreStats } from './source-store';
import { sourceText } from './source-text';

/** Where a source or a call belongs: the session, and the run when inside `withRun`. */
export interface ProvenanceScope {
  sessionId: string;
  runId?: string;
}

/** The tool a piece of untrusted text came from (`markUntrusted`, tool results). */
export interface UntrustedOrigin {
  /** Tool name (1–200 characters). Default `unknown`. */
  toolName?: string;
  /** Id (UUIDv7) of the tool call; another value is ignored. */
  toolCallId?: string;
}

/** Options of `markTrusted`. */
export interface TrustedOptions {
  /**
   * `true`: keep the text in the session-level store, seen by every call of the session (in any
   * run). Default: the current run's store (the session's outside a run).
   */
  session?: boolean;
}

/** What a client's tracker holds, for tests and benchmarks. */
export interface ProvenanceStats {
  runs: number;
  sessions: number;
  /** Totals over every store held. */
  sources: number;
  chars: number;
  bytes: number;
}

/**
 * The provenance side of a client (docs/provenance.md): records what entered the agent's context
 * and computes the provenance of a guarded call's arguments. Never throws: failures are logged.
 */
export interface ProvenanceTracker {
  /** False when provenance is off (`provenance: false`) or the client is disabled. */
  readonly enabled: boolean;
  /** A run starts (`withRun`): its store is made; `parentRunId` names the enclosing run's. */
  openRun(scope: ProvenanceScope, parentRunId?: string): void;
  /** A run returned: its store is dropped. */
  closeRun(runId: string): void;
  /** Records trusted text (the user's request or messages, `markTrusted`). */
  trusted(scope: ProvenanceScope, value: unknown, options?: TrustedOptions): void;
  /** Records untrusted text (a tool result) and checks it for instructions aimed at the model. */
  untrusted(scope: ProvenanceScope, value: unknown, origin: UntrustedOrigin): void;
  /** The provenance of `args` for a guarded call in `scope`; `undefined` when off. */
  provenanceOf(scope: ProvenanceScope, args: unknown): Provenance | undefined;
  stats(): ProvenanceStats;
}

interface SessionState {
  store: SourceStore;
  untrustedInstructions: number;
  lastInstruction?: InstructionSighting;
}

interface RunState {
  store: SourceStore;
  parentRunId?: string;
}

/** Options of {@link createProvenanceTracker}. */
export interface ProvenanceTrackerOptions {
  logger: Logger;
  /** The instruction detector. Default: `detectInstructions` of `@agent-warden/contracts`. */
  detect?: (text: string) => InstructionFinding;
}

/** Most rule ids reported in `lastInstruction.rules` (schema `InstructionSighting`). */
const MAX_SIGHTING_RULES = 16;
const MAX_TOOL_NAME_CHARS = 200;

/**
 * The tracker of an enabled client: per run a {@link SourceStore} (at most
 * {@link PROVENANCE_BOUNDS.MAX_RUNS}, least recently used dropped, dropped when the run returns),
 * per session a store for what is recorded outside runs or marked for the session (at most
 * {@link PROVENANCE_BOUNDS.MAX_SESSIONS}) and the session's instruction count. A call in a run
 * is matched against its run's store, the enclosing runs' stores and its session's store.
 */
export class ClientProvenance implements ProvenanceTracker {
  readonly enabled = true;
  private readonly runs = new LruMap<string, RunState>(PROVENANCE_BOUNDS.MAX_RUNS);
  private readonly sessions = new LruMap<string, SessionState>(PROVENANCE_BOUNDS.MAX_SESSIONS);
  private seq = 0;
  private readonly detect: (text: string) => InstructionFinding;

  constructor(private readonly options: ProvenanceTrackerOptions) {
    this.detect = options.detect ?? detectInstructions;
  }

  openRun(scope: ProvenanceScope, parentRunId?: string): void {
    if (scope.runId === undefined) return;
    this.runs.set(scope.runId, { store: new SourceStore(), parentRunId });
  }

  closeRun(runId: string): void {
    this.runs.delete(runId);
  }

  trusted(scope: ProvenanceScope, value: unknown, options: TrustedOptions = {}): void {
    this.safely('trusted', () => {
      if (value === undefined || value === null) return;
      const norm = normalize(sourceText(value));
      const store = options.session ? this.session(scope.sessionId).store : this.storeOf(scope);
      store.add({ seq: ++this.seq, trusted: true, norm, chars: charLength(norm), instructions: false });
    });
  }

  untrusted(scope: ProvenanceScope, value: unknown, origin: UntrustedOrigin): void {
    this.safely('untrusted', () => {
      if (value === undefined || value === null) return;
      const text = sourceText(value);
      if (text === '') return;
      const toolName = toolNameOf(origin.toolName);
      const toolCallId =
        origin.toolCallId !== undefined && isUuidV7(origin.toolCallId) ? origin.toolCallId : undefined;
      const finding = this.detect(text);
      if (finding.instructions) {
        const session = this.session(scope.sessionId);
        session.untrustedInstructions += 1;
        session.lastInstruction = {
          toolName,
          ...(toolCallId ? { toolCallId } : {}),
          rules: finding.rules.slice(0, MAX_SIGHTING_RULES),
        };
      }
      const norm = normalize(text);
      this.storeOf(scope).add({
        seq: ++this.seq,
        trusted: false,
        norm,
        chars: charLength(norm),
        toolName,
        toolCallId,
        instructions: finding.instructions,
      });
    });
  }

  provenanceOf(scope: ProvenanceScope, args: unknown): Provenance | undefined {
    try {
      const stores: SourceStore[] = [];
      const visited = new Set<string>();
      for (let id = scope.runId; id !== undefined && !visited.has(id);) {
        visited.add(id);
        const run = this.runs.get(id);
        if (!run) break;
        stores.push(run.store);
        id = run.parentRunId;
      }
      const session = this.sessions.get(scope.sessionId);
      if (session) stores.push(session.store);
      const matched = matchArguments(stores, args);
      return {
        arguments: matched.arguments,
        session: {
          untrustedInstructions: session?.untrustedInstructions ?? 0,
          ...(session?.lastInstruction ? { lastInstruction: session.lastInstruction } : {}),
        },
        truncated: matched.truncated,
      };
    } catch (e) {
      this.options.logger.error('warden could not compute provenance', errorFields(e));
      return undefined;
    }
  }

  stats(): ProvenanceStats {
    const all: StoreStats[] = [];
    for (const r of this.runs.values()) all.push(r.store.stats());
    for (const s of this.sessions.values()) all.push(s.store.stats());
    const sum = (f: (s: StoreStats) => number) => all.reduce((n, s) => n + f(s), 0);
    return {
      runs: this.runs.size,
      sessions: this.sessions.size,
      sources: sum((s) => s.trustedSources + s.toolSources),
      chars: sum((s) => s.trustedChars + s.toolChars),
      bytes: sum((s) => s.bytes),
    };
  }

  private storeOf(scope: ProvenanceScope): SourceStore {
    if (scope.runId === undefined) return this.session(scope.sessionId).store;
    let run = this.runs.get(scope.runId);
    if (!run) {
      // A run whose store was dropped (least recently used) starts a new one.
      run = { store: new SourceStore() };
      this.runs.set(scope.runId, run);
    }
    return run.store;
  }

  private session(sessionId: string): SessionState {
    let s = this.sessions.get(sessionId);
    if (!s) {
      s = { store: new SourceStore(), untrustedInstructions: 0 };
      this.sessions.set(sessionId, s);
    }
    return s;
  }

  private safely(what: string, f: () => void): void {
    try {
      f();
    } catch (e) {
      this.options.logger.error(`warden could not record ${what} provenance`, errorFields(e));
    }
  }
}

/** The tracker of a client with provenance off, or disabled: keeps nothing, computes nothing. */
export const DISABLED_PROVENANCE: ProvenanceTracker = {
  enabled: false,
  openRun: () => {},
  closeRun: () => {},
  trusted: () => {},
  untrusted: () => {},
  provenanceOf: () => undefined,
  stats: () => ({ runs: 0, sessions: 0, sources: 0, chars: 0, bytes: 0 }),
};

/** A tracker for a client: {@link ClientProvenance} when `enabled`, else {@link DISABLED_PROVENANCE}. */
export function createProvenanceTracker(
  enabled: boolean,
  options: ProvenanceTrackerOptions,
): ProvenanceTracker {
  return enabled ? new ClientProvenance(options) : DISABLED_PROVENANCE;
}

function toolNameOf(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) return 'unknown';
  return name.slice(0, MAX_TOOL_NAME_CHARS);
}
