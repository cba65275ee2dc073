import { PROVENANCE_BOUNDS } from './bounds';
import { SlotIndex } from './slot-index';
import { TrigramFilter, trigramHashes } from './trigram-index';

const { MAX_TOOL_CHARS, MAX_TRUSTED_CHARS, MAX_SOURCES, MIN_MATCH_CHARS } = PROVENANCE_BOUNDS;

/** A piece of text that entered the agent's context (docs/provenance.md "Sources"). */
export interface StoredSource {
  /** Order of arrival in the client (higher = more recent). */
  seq: number;
  trusted: boolean;
  /** Normal form of the source's text. */
  norm: string;
  /** Normal-form characters (code points) counted against the store's budget. */
  chars: number;
  filter: TrigramFilter;
  /** Slot in the store's {@link SlotIndex}. */
  slot: number;
  /** Tool sources only. */
  toolName?: string;
  toolCallId?: string;
  /** Tool sources only: the text carried instructions aimed at the model. */
  instructions: boolean;
}

/** What a store holds, for tests and the benchmark. */
export interface StoreStats {
  trustedSources: number;
  toolSources: number;
  trustedChars: number;
  toolChars: number;
  /** Bytes of normal forms (UTF-16) and filters held. */
  bytes: number;
}

/**
 * The sources of one run (or of a session outside runs), bounded as docs/provenance.md "Bounds"
 * says: at most {@link PROVENANCE_BOUNDS.MAX_TOOL_CHARS} tool and
 * {@link PROVENANCE_BOUNDS.MAX_TRUSTED_CHARS} trusted normal-form characters (the oldest of the
 * kind evicted first) and {@link PROVENANCE_BOUNDS.MAX_SOURCES} sources (the oldest tool source
 * evicted first, the oldest trusted one when no tool source is left). Sources whose normal form
 * is shorter than {@link PROVENANCE_BOUNDS.MIN_MATCH_CHARS} can contain no segment and are not
 * kept. Memory: about 3 bytes per kept normal-form character, plus the inverted trigram table
 * (≤ 256 KiB).
 */
export class SourceStore {
  /** Oldest first. */
  readonly trusted: StoredSource[] = [];
  /** Oldest first. */
  readonly tools: StoredSource[] = [];
  private trustedChars = 0;
  private toolChars = 0;
  private readonly index = new SlotIndex();
  private readonly slots: Array<StoredSource | undefined> = [];

  /** Adds a source (already normalised) and evicts what the bounds require. */
  add(source: Omit<StoredSource, 'filter' | 'slot'>): void {
    if (source.chars < MIN_MATCH_CHARS) return;
    const hashes = trigramHashes(source.norm);
    const slot = this.index.add(hashes);
    const stored: StoredSource = { ...source, filter: new TrigramFilter(hashes, source.norm.length), slot };
    this.slots[slot] = stored;
    if (stored.trusted) {
      this.trusted.push(stored);
      this.trustedChars += stored.chars;
      while (this.trustedChars > MAX_TRUSTED_CHARS && this.trusted.length > 1) this.evictTrusted();
    } else {
      this.tools.push(stored);
      this.toolChars += stored.chars;
      while (this.toolChars > MAX_TOOL_CHARS && this.tools.length > 1) this.evictTool();
    }
    while (this.trusted.length + this.tools.length > MAX_SOURCES) {
      if (this.tools.length > 0) this.evictTool();
      else this.evictTrusted();
    }
  }

  /**
   * Calls `visit` with every source whose normal form contains `segment` (a normal form;
   * `hashes` = its {@link trigramHashes}): the inverted table picks the candidates, each one's
   * filter and `String.prototype.includes` confirm.
   */
  forEachContaining(segment: string, hashes: Int32Array, visit: (source: StoredSource) => void): void {
    this.index.candidates(hashes, (slot) => {
      const s = this.slots[slot];
      if (s && s.norm.length >= segment.length && s.filter.mayContain(hashes) && s.norm.includes(segment)) {
        visit(s);
      }
    });
  }

  /** Totals of what is held. */
  stats(): StoreStats {
    let bytes = this.index.bytes;
    for (const s of this.trusted) bytes += s.norm.length * 2 + s.filter.bytes;
    for (const s of this.tools) bytes += s.norm.length * 2 + s.filter.bytes;
    return {
      trustedSources: this.trusted.length,
      toolSources: this.tools.length,
      trustedChars: this.trustedChars,
      toolChars: this.toolChars,
      bytes,
    };
  }

  private evictTrusted(): void {
    const s = this.trusted.shift();
    if (s) {
      this.trustedChars -= s.chars;
      this.release(s);
    }
  }

  private evictTool(): void {
    const s = this.tools.shift();
    if (s) {
      this.toolChars -= s.chars;
      this.release(s);
    }
  }

  private release(s: StoredSource): void {
    this.slots[s.slot] = undefined;
    this.index.remove(s.slot);
  }
}
