/**
 * Cleanup actions run in reverse order of registration, each at most once, even when a part of the
 * benchmark fails or the run is interrupted (SIGINT / SIGTERM).
 */
export class Cleanup {
  private readonly actions: { name: string; run: () => Promise<unknown> }[] = [];

  /** Registers `run` (e.g. drop a database, stop a process) under `name` for error messages. */
  add(name: string, run: () => Promise<unknown>): void {
    this.actions.push({ name, run });
  }

  /** Runs every registered action, newest first; failures are reported on stderr, not thrown. */
  async runAll(): Promise<void> {
    while (this.actions.length > 0) {
      const a = this.actions.pop()!;
      try {
        await a.run();
      } catch (err) {
        process.stderr.write(`cleanup "${a.name}" failed: ${(err as Error).message}\n`);
      }
    }
  }
}
