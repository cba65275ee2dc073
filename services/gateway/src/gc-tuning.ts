import v8 from 'node:v8';

/** The V8 flag {@link disableAllocationSitePretenuring} sets (process-wide, every isolate). */
const NO_PRETENURING_FLAG = '--no-allocation-site-pretenuring';

/**
 * Turns off V8's allocation-site pretenuring for this process (all its isolates, including the
 * evaluation publisher's worker thread): every object is born in the young generation and reaches
 * the old one only by surviving two scavenges.
 *
 * Why (docs/decisions.md "The gateway runs without V8 allocation-site pretenuring";
 * docs/benchmarks.md "Guard check tail on Node.js 24: what survives a scavenge (issue 13)"): under a
 * steady request load, V8 13 (Node.js 24) decides to allocate some per-request object literals
 * directly in the old generation. Those objects die with their request but stay in the old
 * generation until the next mark-compact, and their pointers into the young generation keep that
 * request's other objects alive through every scavenge. At 1,000 guard checks/s each scavenge then
 * copied ~2 MB and promoted ~2 MB of dead requests (5–15 ms pauses, the guard check's p99); without
 * pretenuring it copies 0.05–0.4 MB (2–3 ms). The live heap is the same either way.
 *
 * Call before serving requests: V8 reads the flag at each garbage collection, so no site is
 * pretenured from then on (sites pretenured while modules loaded stay so; they hold long-lived
 * data). Idempotent. Never throws (a V8 that no longer knows the flag prints "unrecognized flag"
 * on stderr and keeps its default).
 */
export function disableAllocationSitePretenuring(): void {
  v8.setFlagsFromString(NO_PRETENURING_FLAG);
}
