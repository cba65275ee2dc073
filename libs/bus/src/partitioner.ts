import { Partitioners, type ICustomPartitioner } from 'kafkajs';

const M = 0x5bd1e995;
const SEED = 0x9747b28c;

/**
 * Kafka's murmur2 hash of `data` (a signed 32-bit int): the Java client's `Utils.murmur2` (seed
 * 0x9747b28c), which its default partitioner uses for keyed records. Same result as kafkajs's
 * `DefaultPartitioner` hash, computed with 32-bit integer arithmetic (`Math.imul`) instead of
 * kafkajs's BigInt-backed `Long`, which allocates ~30 objects per key.
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = data[i4]! | (data[i4 + 1]! << 8) | (data[i4 + 2]! << 16) | (data[i4 + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The last 1–3 bytes (the Java code's fall-through switch).
  const tail = length & ~3;
  const rest = length & 3;
  if (rest === 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) {
    h ^= data[tail]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h;
}

/**
 * kafkajs partitioner with the Java client's placement (`DefaultPartitioner`): an explicit
 * partition wins; a keyed record goes to `(murmur2(utf8(key)) & 0x7fffffff) % partitions`, so
 * other Kafka clients put the same key on the same partition; records without a key are spread
 * by kafkajs's own default partitioner (round robin over available partitions).
 */
export const JavaCompatiblePartitioner: ICustomPartitioner = () => {
  const keyless = Partitioners.DefaultPartitioner();
  return (args) => {
    const { message, partitionMetadata } = args;
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    if (message.key !== null && message.key !== undefined) {
      const bytes = typeof message.key === 'string' ? Buffer.from(message.key, 'utf8') : message.key;
      return (murmur2(bytes) & 0x7fffffff) % partitionMetadata.length;
    }
    return keyless(args);
  };
};
