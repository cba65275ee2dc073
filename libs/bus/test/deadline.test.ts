import { withDeadline } from '../src/deadline';

const after = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe('withDeadline', () => {
  test('resolves with the attempt when every step finishes in time', async () => {
    await expect(
      withDeadline(500, async (race) => (await race(after(5, 2))) + (await race(after(5, 3)))),
    ).resolves.toBe(5);
  });

  test('rejects with a timeout naming the deadline when a step is slower than it', async () => {
    const t0 = Date.now();
    await expect(withDeadline(50, (race) => race(after(2_000, 'late')))).rejects.toThrow(
      'publish timed out after 50 ms',
    );
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  test('the deadline covers all the steps together, not each one', async () => {
    await expect(
      withDeadline(60, async (race) => {
        await race(after(40, 1));
        return race(after(40, 2));
      }),
    ).rejects.toThrow('publish timed out after 60 ms');
  });

  test("an attempt's own error is passed through", async () => {
    await expect(withDeadline(500, () => Promise.reject(new Error('broker said no')))).rejects.toThrow(
      'broker said no',
    );
  });
});
