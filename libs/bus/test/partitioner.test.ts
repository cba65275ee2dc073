import { randomBytes } from 'node:crypto';
import { compatibilityPartitioner, murmur2 as referenceMurmur2 } from '@platformatic/kafka';
import { javaCompatiblePartitioner, murmur2 } from '../src/partitioner';

// A record as the producer hands it to a partitioner (only the key matters to both).
const record = { topic: 't', key: 'k', value: 'v' };
const context = { metadata: undefined };

describe('murmur2', () => {
  test('matches the Java client (values from kafka Utils.murmur2)', () => {
    // Known outputs of org.apache.kafka.common.utils.Utils.murmur2 (its UtilsTest).
    expect(murmur2(Buffer.from('21'))).toBe(-973932308);
    expect(murmur2(Buffer.from('foobar'))).toBe(-790332482);
    expect(murmur2(Buffer.from('a-little-bit-long-string'))).toBe(-985981536);
    expect(murmur2(Buffer.from('a-little-bit-longer-string'))).toBe(-1486304829);
    expect(murmur2(Buffer.from('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'))).toBe(-58897971);
  });

  test("equals @platformatic/kafka's (BigInt) murmur2 for 5,000 random keys of every length 0–64, ASCII and UTF-8", () => {
    for (let i = 0; i < 5_000; i++) {
      const key = i % 2 ? randomBytes(i % 65) : Buffer.from(`sess-${i}-ünïcødé-${'x'.repeat(i % 13)}`);
      expect(murmur2(key)).toBe(referenceMurmur2(key));
    }
  });
});

describe('javaCompatiblePartitioner', () => {
  test("places keyed records exactly where @platformatic/kafka's compatibilityPartitioner does", () => {
    let negative = 0;
    for (let i = 0; i < 2_000; i++) {
      const key =
        i % 3 ? Buffer.from(`01J${randomBytes(10).toString('hex').toUpperCase()}`) : randomBytes(16);
      const ours = javaCompatiblePartitioner(record, key, context);
      expect(ours).toBe(compatibilityPartitioner(record, key));
      expect(ours).toBeGreaterThanOrEqual(0);
      if (murmur2(key) < 0) negative += 1;
    }
    // Keys whose hash is negative are the ones an unsigned (`>>> 0`) placement would get wrong.
    expect(negative).toBeGreaterThan(500);
  });

  test('a record without a key goes to partition 0', () => {
    expect(javaCompatiblePartitioner(record, undefined, context)).toBe(0);
  });
});
