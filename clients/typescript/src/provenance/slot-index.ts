/** Buckets of the inverted trigram table (each a bitset over the store's slots). */
const BUCKETS = 4096;
/** Bits of a trigram hash the bucket is taken from (the per-source filter uses the low bits). */
const BUCKET_SHIFT = 20;

/**
 * An inverted trigram table over the sources of one store: for each of {@link BUCKETS} buckets of
 * trigram hashes, a bitset of the slots whose normal form has a trigram in that bucket. The
 * candidates for a segment are the AND of its trigrams' bitsets — a few contiguous words per
 * trigram, whatever the number of sources — then each candidate's own filter and `indexOf`
 * confirm. No false negatives. Memory: 512 bytes per 32 slots of capacity (256 KiB at 512).
 */
export class SlotIndex {
  private words = 1;
  private table = new Uint32Array(BUCKETS);
  private readonly free: number[] = [];
  private used = 0;
  private scratch = new Uint32Array(1);

  /** Bytes held by the table. */
  get bytes(): number {
    return this.table.byteLength;
  }

  /** Takes a slot and marks the buckets of `hashes` (the source's trigram hashes). */
  add(hashes: Int32Array): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      if (this.used === this.words * 32) this.grow();
      slot = this.used;
      this.used += 1;
    }
    const { words, table } = this;
    const word = slot >>> 5;
    const bit = 1 << (slot & 31);
    for (let i = 0; i < hashes.length; i += 1) {
      const b = ((hashes[i] as number) >>> BUCKET_SHIFT) & (BUCKETS - 1);
      const at = b * words + word;
      table[at] = (table[at] as number) | bit;
    }
    return slot;
  }

  /** Frees `slot`: clears it in every bucket. */
  remove(slot: number): void {
    const { words, table } = this;
    const word = slot >>> 5;
    const keep = ~(1 << (slot & 31));
    for (let b = 0; b < BUCKETS; b += 1) {
      const at = b * words + word;
      table[at] = (table[at] as number) & keep;
    }
    this.free.push(slot);
  }

  /**
   * Calls `visit(slot)` for every slot whose buckets hold all of `hashes` (a segment's trigram
   * hashes). Stops early once no slot is left.
   */
  candidates(hashes: Int32Array, visit: (slot: number) => void): void {
    const { words, table } = this;
    if (this.scratch.length !== words) this.scratch = new Uint32Array(words);
    const acc = this.scratch;
    acc.fill(0xffffffff);
    for (let i = 0; i < hashes.length; i += 1) {
      const base = (((hashes[i] as number) >>> BUCKET_SHIFT) & (BUCKETS - 1)) * words;
      let any = 0;
      for (let w = 0; w < words; w += 1) {
        const v = (acc[w] as number) & (table[base + w] as number);
        acc[w] = v;
        any |= v;
      }
      if (any === 0) return;
    }
    for (let w = 0; w < words; w += 1) {
      let v = acc[w] as number;
      while (v !== 0) {
        const low = v & -v;
        visit(w * 32 + (31 - Math.clz32(low)));
        v ^= low;
      }
    }
  }

  private grow(): void {
    const words = this.words * 2;
    const table = new Uint32Array(BUCKETS * words);
    for (let b = 0; b < BUCKETS; b += 1) {
      for (let w = 0; w < this.words; w += 1) table[b * words + w] = this.table[b * this.words + w] as number;
    }
    this.words = words;
    this.table = table;
  }
}
