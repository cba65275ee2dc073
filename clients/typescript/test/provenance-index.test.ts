/**
 * The store's inverted trigram table and per-source filters only skip work: what they find is
 * exactly "the segment is a substring of the source's normal form" (docs/provenance.md), through
 * additions, evictions and slot reuse.
 */
import { SourceStore, type StoredSource } from '../src/provenance';
import { trigramHashes } from '../src/provenance/trigram-index';

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

it('finds exactly the sources that contain each segment, through evictions', () => {
  const rand = rng(14);
  // A small alphabet makes many near-misses (shared trigrams, different strings).
  const word = (n: number) => Array.from({ length: n }, () => 'abcde0123'[Math.floor(rand() * 9)]).join('');
  const store = new SourceStore();
  const all: Array<{ norm: string; seq: number }> = [];
  for (let seq = 1; seq <= 1500; seq += 1) {
    const norm = word(3 + Math.floor(rand() * 400));
    const trusted = rand() < 0.2;
    store.add({ seq, trusted, norm, chars: norm.length, instructions: false });
    all.push({ norm, seq });
  }
  const held = new Set([...store.trusted, ...store.tools].map((s) => s.seq));
  expect(held.size).toBe(512);
  for (let i = 0; i < 400; i += 1) {
    const segment = i % 2 === 0 ? word(3 + Math.floor(rand() * 6)) : sliceOfHeld(store, rand);
    const found: number[] = [];
    store.forEachContaining(segment, trigramHashes(segment), (s: StoredSource) => found.push(s.seq));
    const expected = all.filter((s) => held.has(s.seq) && s.norm.includes(segment)).map((s) => s.seq);
    expect(found.sort((a, b) => a - b)).toEqual(expected);
  }
});

function sliceOfHeld(store: SourceStore, rand: () => number): string {
  const sources = [...store.trusted, ...store.tools];
  const s = sources[Math.floor(rand() * sources.length)]!.norm;
  const from = Math.floor(rand() * (s.length - 3));
  return s.slice(from, from + 3 + Math.floor(rand() * 20));
}
