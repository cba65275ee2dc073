/**
 * Entry of the {@link KafkaPublisherThread}'s worker thread: one {@link PlatformaticPublisher};
 * answers each `publish` request with `published` or `failed` (same id); on `close`, waits for the
 * publishes in progress, disconnects and ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '@agent-warden/observability';
import { PlatformaticPublisher } from './platformatic-publisher';
import type { PublisherReply, PublisherRequest, PublisherThreadOptions } from './publisher-thread';

const options = workerData as PublisherThreadOptions;
const port = parentPort!;
const logger = createLogger({ name: options.logName, level: options.logLevel }).child({
  component: 'publisher-thread',
});
const bus = new PlatformaticPublisher({
  brokers: options.brokers,
  clientId: options.clientId,
  topicPrefix: options.topicPrefix,
  publishTimeoutMs: options.publishTimeoutMs,
  logger,
});
const inFlight = new Set<Promise<void>>();
const reply = (r: PublisherReply) => port.postMessage(r);

port.on('message', (req: PublisherRequest) => {
  if (req.kind === 'publish') {
    const done = bus.publish(req.topic, req.messages).then(
      () => reply({ kind: 'published', id: req.id }),
      (err: unknown) =>
        reply({ kind: 'failed', id: req.id, message: err instanceof Error ? err.message : String(err) }),
    );
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  } else if (req.kind === 'close') {
    void Promise.allSettled([...inFlight])
      .then(() => bus.close())
      .finally(() => port.close());
  }
});
