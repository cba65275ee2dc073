import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { post } from './profile';

/**
 * Diagnostics for a bench child: samples every allocation of this process (V8 sampling heap
 * profiler, one sample per `intervalBytes` allocated, objects later freed by scavenges or
 * mark-compacts included), so the profile shows *allocation* by call stack, not what is retained.
 * With `live`, objects freed by a collection drop out of the profile: what is left when it stops
 * is what the heap still held then, by allocation stack (survivors of scavenges, and old-space
 * objects no mark-compact has freed yet). Resolves with a function that stops and writes the
 * profile (`.heapprofile`, opens in Chrome DevTools) to `file`.
 */
export async function startAllocationProfile(
  file: string,
  intervalBytes = 16_384,
  live = false,
): Promise<() => Promise<void>> {
  const s = new Session();
  s.connect();
  await post(s, 'HeapProfiler.enable');
  await post(s, 'HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: !live,
    includeObjectsCollectedByMinorGC: !live,
  });
  return async () => {
    const { profile } = await post<{ profile: object }>(s, 'HeapProfiler.stopSampling');
    writeFileSync(file, JSON.stringify(profile));
    s.disconnect();
  };
}
