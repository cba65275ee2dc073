import { SendCoalescer, InMemoryBus, BusUnavailableError, type BusBatch } from '../src';
import { silentLogger } from '@agent-warden/observability';

describe('SendCoalescer', () => {
  test('items submitted while a send is in flight go out together in the next send', async () => {
    const sends: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const c = new SendCoalescer<number>(async (items) => {
      sends.push(items);
      if (sends.length === 1) await gate;
    });
    const p1 = c.submit([1]);
    const p2 = c.submit([2]);
    const p3 = c.submit([3, 4]);
    release();
    await Promise.all([p1, p2, p3]);
    expect(sends).toEqual([[1], [2, 3, 4]]);
  });
  test('a failed send rejects exactly the callers it carried', async () => {
    let n = 0;
    const c = new SendCoalescer<number>(async () => {
      n += 1;
      if (n === 1) throw new Error('down');
    });
    await expect(c.submit([1])).rejects.toThrow('down');
    await expect(c.submit([2])).resolves.toBeUndefined();
  });
});

describe('InMemoryBus', () => {
  test('publish resolves after every subscribed group handled the records (write-through)', async () => {
    const bus = new InMemoryBus(silentLogger());
    const seen: BusBatch[] = [];
    await bus.subscribe({ groupId: 'g', topics: ['agent-events'], handler: async (b) => void seen.push(b) });
    await bus.publish('agent-events', [
      {
        key: 's1',
        value: { specversion: '1.0', id: 'a', source: '/x', type: 't', data: {}, projectid: 'p' },
      },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.records[0]).toMatchObject({ key: 's1', offset: '0', partition: 0 });
    expect(JSON.parse(seen[0]!.records[0]!.value!)).toMatchObject({ id: 'a' });
  });
  test('a failing handler makes publish fail with BusUnavailableError (the gateway answers 503)', async () => {
    const bus = new InMemoryBus(silentLogger());
    await bus.subscribe({
      groupId: 'g',
      topics: ['agent-events'],
      handler: async () => {
        throw new Error('db down');
      },
    });
    await expect(
      bus.publish('agent-events', [
        {
          key: 'k',
          value: { specversion: '1.0', id: 'a', source: '/x', type: 't', data: {}, projectid: 'p' },
        },
      ]),
    ).rejects.toBeInstanceOf(BusUnavailableError);
    expect(bus.isHealthy()).toBe(false);
  });
});
