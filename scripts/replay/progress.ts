import cliProgress from 'cli-progress';
import type { ReplayProgress } from './replay';

/** Shows a replay's progress on stderr; `stop()` before printing the summary. */
export interface ProgressView {
  update(p: ReplayProgress): void;
  stop(): void;
}

/** Interval of the plain progress lines when stderr is not a terminal, ms. */
const LINE_INTERVAL_MS = 5000;

function waitingText(p: ReplayProgress): string {
  return p.waiting
    ? `waiting for the service (${p.waiting.reason} on ${p.waiting.request}, retry ${p.waiting.attempt})`
    : '';
}

/**
 * On a TTY, a progress bar (cli-progress) with trajectories done / total, skipped ones, events sent,
 * and what the replay is waiting for while the service is down. Elsewhere (CI, pipes), a plain line
 * on stderr at each tenth of the way, every {@link LINE_INTERVAL_MS} ms, and when waiting starts.
 */
export function progressView(stream: NodeJS.WriteStream = process.stderr): ProgressView {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format:
          'replay [{bar}] {value}/{total} trajectories | {skipped} already stored | {events} events sent {waiting}',
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(p) {
        const payload = { skipped: p.skipped, events: p.eventsSent, waiting: waitingText(p) };
        if (!started) {
          bar.start(p.total, p.done, payload);
          started = true;
        } else bar.update(p.done, payload);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = 0;
  let lastTenth = -1;
  let wasWaiting = false;
  return {
    update(p) {
      const now = Date.now();
      const startsWaiting = p.waiting !== undefined && !wasWaiting;
      wasWaiting = p.waiting !== undefined;
      const tenth = p.total > 0 ? Math.floor((p.done * 10) / p.total) : 10;
      if (!startsWaiting && tenth === lastTenth && now - last < LINE_INTERVAL_MS) return;
      last = now;
      lastTenth = tenth;
      stream.write(
        `replay: ${p.done}/${p.total} trajectories, ${p.skipped} already stored, ${p.eventsSent} events sent` +
          (p.waiting ? `; ${waitingText(p)}` : '') +
          '\n',
      );
    },
    stop() {},
  };
}
