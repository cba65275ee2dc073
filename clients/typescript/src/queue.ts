/**
 * A bounded FIFO of items waiting to be sent. Items taken for sending stay counted against the
 * capacity until they are settled with {@link BoundedQueue.settle} (sent or lost) or put back at
 * the front with {@link BoundedQueue.putBack} (to be retried by the next flush), so the bound
 * holds for everything the client keeps in memory. When full, the NEWEST item is refused.
 */
export class BoundedQueue<T> {
  private items: T[] = [];
  private taken = 0;

  /** @param capacity most items held (waiting + taken), ≥ 1. */
  constructor(private readonly capacity: number) {}

  /** Items held: waiting plus taken and not yet settled. */
  get size(): number {
    return this.items.length + this.taken;
  }

  /** Items waiting to be taken. */
  get waiting(): number {
    return this.items.length;
  }

  /** Appends `item`; returns `false` (and keeps nothing) when the queue is full. */
  push(item: T): boolean {
    if (this.size >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  /**
   * Takes up to `maxItems` items from the front whose summed `weight` stays within `maxWeight`
   * (the first item is always taken, whatever its weight). The items stay counted until settled
   * or put back.
   */
  take(maxItems: number, maxWeight = Infinity, weight: (item: T) => number = () => 0): T[] {
    let n = 0;
    let total = 0;
    while (n < this.items.length && n < maxItems) {
      const w = weight(this.items[n] as T);
      if (n > 0 && total + w > maxWeight) break;
      total += w;
      n++;
    }
    const batch = this.items.splice(0, n);
    this.taken += batch.length;
    return batch;
  }

  /** Releases taken items that were sent or given up. */
  settle(batch: readonly T[]): void {
    this.taken = Math.max(0, this.taken - batch.length);
  }

  /** Returns taken items to the front, in their order, for the next flush. */
  putBack(batch: readonly T[]): void {
    this.settle(batch);
    this.items.unshift(...batch);
  }
}
