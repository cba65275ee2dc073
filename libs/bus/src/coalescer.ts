/**
 * Coalesces concurrent sends into one in-flight send at a time: items submitted while a send is in
 * flight are sent together next (a "linger" bounded by the previous send's latency). Each caller's
 * promise settles with the outcome of the send that carried its items.
 */
export class SendCoalescer<T> {
  private pending: { items: T[]; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private inFlight = false;

  constructor(
    private readonly send: (items: T[]) => Promise<void>,
    private readonly maxItemsPerSend = 10_000,
  ) {}

  /** Queues `items` and resolves when the send carrying them succeeded. */
  submit(items: T[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ items, resolve, reject });
      if (!this.inFlight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight = true;
    try {
      while (this.pending.length > 0) {
        const group: typeof this.pending = [];
        let count = 0;
        while (
          this.pending.length > 0 &&
          (group.length === 0 || count + this.pending[0]!.items.length <= this.maxItemsPerSend)
        ) {
          const next = this.pending.shift()!;
          group.push(next);
          count += next.items.length;
        }
        try {
          await this.send(group.flatMap((g) => g.items));
          for (const g of group) g.resolve();
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.inFlight = false;
    }
  }
}
