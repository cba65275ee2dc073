import type { ArgumentOrigin, ArgumentProvenance, ProvenanceSource } from '@agent-warden/contracts';
import { PROVENANCE_BOUNDS } from './bounds';
import { argumentLeaves, segmentsOf } from './leaves';
import { leafText } from './normal-form';
import type { SourceStore, StoredSource } from './source-store';
import { trigramHashes } from './trigram-index';

/** The argument part of a provenance: one entry per reported leaf, in leaf order. */
export interface ArgumentsProvenance {
  arguments: ArgumentProvenance[];
  /** More than {@link PROVENANCE_BOUNDS.MAX_LEAVES} leaves were found. */
  truncated: boolean;
}

/**
 * The origin of every leaf of `args` against the sources of `stores` (docs/provenance.md "Origin
 * of a leaf"). A segment is found in a source when it is a substring of the source's normal form;
 * each store's inverted trigram table and per-source filters skip the sources that cannot contain
 * it. Cost: per segment and store, a few words ANDed per trigram, then `includes` on the candidates.
 */
export function matchArguments(stores: readonly SourceStore[], args: unknown): ArgumentsProvenance {
  const { leaves, truncated } = argumentLeaves(args);
  const out: ArgumentProvenance[] = [];
  for (const leaf of leaves) {
    const segments = segmentsOf(leafText(leaf.value));
    if (segments.length === 0) continue;
    out.push({ path: wirePath(leaf.path), ...originOf(stores, segments) });
  }
  return { arguments: out, truncated };
}

function originOf(stores: readonly SourceStore[], segments: string[]): Omit<ArgumentProvenance, 'path'> {
  let anyUser = false;
  let anyTool = false;
  let tainted = false;
  const taintSources = new Set<StoredSource>();
  const toolSources = new Set<StoredSource>();
  for (const segment of segments) {
    const hashes = trigramHashes(segment);
    let inUser = false;
    const hits: StoredSource[] = [];
    for (const st of stores) {
      st.forEachContaining(segment, hashes, (s) => {
        if (s.trusted) inUser = true;
        else hits.push(s);
      });
    }
    anyUser ||= inUser;
    if (hits.length === 0) continue;
    anyTool = true;
    for (const s of hits) toolSources.add(s);
    if (!inUser) {
      tainted = true;
      for (const s of hits) taintSources.add(s);
    }
  }
  const origin: ArgumentOrigin = anyUser && anyTool ? 'both' : anyUser ? 'user' : anyTool ? 'tool' : 'none';
  const chosen = [...(tainted ? taintSources : toolSources)]
    .sort((a, b) => b.seq - a.seq)
    .slice(0, PROVENANCE_BOUNDS.MAX_SOURCES_PER_LEAF);
  let instructed = false;
  if (tainted) for (const s of taintSources) instructed ||= s.instructions;
  return { origin, tainted, instructed, sources: chosen.map(sourceEntry) };
}

/** Longest path the schema takes (`ArgumentProvenance.path`), UTF-16 units. */
const MAX_PATH_UNITS = 500;

/** The path cut to what the schema takes, never in the middle of a surrogate pair. */
function wirePath(path: string): string {
  if (path.length <= MAX_PATH_UNITS) return path;
  const cut = path.slice(0, MAX_PATH_UNITS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

function sourceEntry(s: StoredSource): ProvenanceSource {
  return s.toolCallId === undefined
    ? { toolName: s.toolName ?? 'unknown', instructions: s.instructions }
    : { toolName: s.toolName ?? 'unknown', toolCallId: s.toolCallId, instructions: s.instructions };
}
