import type { Partitioner } from '@platformatic/kafka';

const M = 0x5bd1e995;
const SEED = 0x9747b28c;

/**
 * Kafka's murmur2 hash of `data` (a signed 32-bit int): the Java client's `Utils.murmur2` (seed
 * 0x9747b28c), which its default partitioner uses for keyed records. Same result as
 * `@platformatic/kafka`'s own `murmur2`, computed with 32-bit integer arithmetic (`Math.imul`)
 * instead of its BigInt arithmetic, which allocates a BigInt per step of every key.
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
 * The Java client's placement of a keyed record (`BuiltInPartitioner.partitionForKey`):
 * `murmur2(key) & 0x7fffffff`, where `key` is the serialized key (UTF-8 bytes); the producer takes
 * it modulo the topic's partition count, so every Kafka client puts a key on the same partition.
 * Same result as `@platformatic/kafka`'s `compatibilityPartitioner` (its default,
 * `murmur2 >>> 0`, places a key whose hash is negative elsewhere), without its BigInt hashing.
 * Records without a key go to partition 0 (ours always have one: the session or evaluation id).
 */
export const javaCompatiblePartitioner: Partitioner<string, string, string, string> = (_message, key) =>
  key ? murmur2(key) & 0x7fffffff : 0;
