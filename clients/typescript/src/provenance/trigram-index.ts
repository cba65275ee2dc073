/**
 * A per-source filter of the character trigrams of its normal form: a bitset (one hash per
 * trigram, about 8 bits per character) that says "maybe" or "surely not" to "is this segment a
 * substring of the source?". A substring's trigrams are all in the source's, so the filter has no
 * false negatives; `String.prototype.indexOf` confirms a "maybe". Segments are hashed once per
 * call ({@link trigramHashes}) and tested against each candidate source's bitset.
 */
export class TrigramFilter {
  private readonly words: Uint32Array;
  private readonly mask: number;

  /**
   * Builds the filter of a normal form of `length` UTF-16 units from its trigram hashes
   * ({@link trigramHashes}). Memory: about `length` bytes.
   */
  constructor(hashes: Int32Array, length: number) {
    let bits = 64;
    const want = length * 8;
    while (bits < want) bits *= 2;
    this.mask = bits - 1;
    this.words = new Uint32Array(bits >>> 5);
    for (let i = 0; i < hashes.length; i += 1) {
      const h = (hashes[i] as number) & this.mask;
      this.words[h >>> 5] = (this.words[h >>> 5] as number) | (1 << (h & 31));
    }
  }

  /** Bytes held by the bitset. */
  get bytes(): number {
    return this.words.byteLength;
  }

  /** False when some trigram of the segment is surely absent from the source. */
  mayContain(hashes: Int32Array): boolean {
    const { words, mask } = this;
    for (let i = 0; i < hashes.length; i += 1) {
      const h = (hashes[i] as number) & mask;
      if (((words[h >>> 5] as number) & (1 << (h & 31))) === 0) return false;
    }
    return true;
  }
}

/** The trigram hashes of a normal form (UTF-16 code units; empty below 3 units). */
export function trigramHashes(segment: string): Int32Array {
  const n = Math.max(0, segment.length - 2);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i += 1) {
    out[i] = hash3(segment.charCodeAt(i), segment.charCodeAt(i + 1), segment.charCodeAt(i + 2));
  }
  return out;
}

function hash3(a: number, b: number, c: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h;
}
