import { randomBytes } from 'node:crypto';
import { Partitioners, type PartitionerArgs } from 'kafkajs';
import { JavaCompatiblePartitioner, murmur2 } from '../src/partitioner';
// kafkajs's own hash (BigInt-backed), the reference this one must match.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2') as (
  key: Buffer,
) => number;

const partitions = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    partitionErrorCode: 0,
    partitionId: i,
    leader: 1,
    replicas: [1],
    isr: [1],
  }));
const args = (key: string | Buffer | null, n: number, partition?: number): PartitionerArgs =>
  ({
    topic: 't',
    partitionMetadata: partitions(n),
    message: { key, value: 'v', partition },
  }) as PartitionerArgs;

describe('murmur2', () => {
  test('matches the Java client (values from kafka Utils.murmur2)', () => {
    // Known outputs of org.apache.kafka.common.utils.Utils.murmur2 (its UtilsTest).
    expect(murmur2(Buffer.from('21'))).toBe(-973932308);
    expect(murmur2(Buffer.from('foobar'))).toBe(-790332482);
    expect(murmur2(Buffer.from('a-little-bit-long-string'))).toBe(-985981536);
    expect(murmur2(Buffer.from('a-little-bit-longer-string'))).toBe(-1486304829);
    expect(murmur2(Buffer.from('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'))).toBe(-58897971);
  });

  test('equals kafkajs for 5,000 random keys of every length 0–64, ASCII and UTF-8', () => {
    for (let i = 0; i < 5_000; i++) {
      const key = i % 2 ? randomBytes(i % 65) : Buffer.from(`sess-${i}-ünïcødé-${'x'.repeat(i % 13)}`);
      expect(murmur2(key)).toBe(kafkajsMurmur2(key));
    }
  });
});

describe('JavaCompatiblePartitioner', () => {
  test('places keyed records exactly where kafkajs DefaultPartitioner does', () => {
    const ours = JavaCompatiblePartitioner();
    const theirs = Partitioners.DefaultPartitioner();
    for (let i = 0; i < 2_000; i++) {
      const key = i % 3 ? `01J${randomBytes(10).toString('hex').toUpperCase()}` : randomBytes(16);
      for (const n of [1, 3, 6, 7]) expect(ours(args(key, n))).toBe(theirs(args(key, n)));
    }
  });

  test('an explicit partition wins; keyless records are spread over every partition', () => {
    const p = JavaCompatiblePartitioner();
    expect(p(args('k', 6, 4))).toBe(4);
    const seen = new Set(Array.from({ length: 60 }, () => p(args(null, 6))));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
