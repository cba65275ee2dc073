/**
 * Runs `attempt` under one deadline of `timeoutMs` ms: resolves with its result, or rejects with
 * `Error('publish timed out after <timeoutMs> ms')` as soon as the deadline passes. `attempt` gets
 * `race`, which bounds each step it awaits by the same deadline (connect, then send). The timed-out
 * work is not cancelled: callers drop the producer that was doing it.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  attempt: (race: <U>(step: Promise<U>) => Promise<U>) => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`publish timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([attempt((step) => Promise.race([step, timeout])), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
