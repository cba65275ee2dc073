import { BusUnavailableError, InMemoryBus } from '@agent-warden/bus';
import { TOPICS, type PolicyChangeNotice } from '@agent-warden/contracts';
import { silentLogger, type Logger } from '@agent-warden/observability';
import { BusPolicyChangeNotifier } from '../src/policy-changes';

describe('BusPolicyChangeNotifier', () => {
  test('announces a committed change on policy-changes, keyed by project, with the time of the change', async () => {
    const bus = new InMemoryBus(silentLogger());
    const got: { key: string | null; notice: PolicyChangeNotice }[] = [];
    await bus.subscribe({
      groupId: 'gateways',
      topics: [TOPICS.policyChanges],
      handler: async ({ records }) => {
        for (const r of records) got.push({ key: r.key, notice: JSON.parse(r.value!) as PolicyChangeNotice });
      },
    });
    const before = Date.now();
    new BusPolicyChangeNotifier(bus, silentLogger()).changed({
      projectId: 'p1',
      change: 'disabled',
      policyId: 'pol-7',
    });
    for (let i = 0; i < 50 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(got).toHaveLength(1);
    expect(got[0]!.key).toBe('p1');
    expect(got[0]!.notice).toMatchObject({ projectId: 'p1', change: 'disabled', policyId: 'pol-7' });
    expect(Date.parse(got[0]!.notice.changedAt)).toBeGreaterThanOrEqual(before - 1);
  });

  test('a hint the log cannot take is logged, never thrown to the request that made the change', async () => {
    const warn = jest.fn();
    const logger = { warn } as unknown as Logger;
    const bus = { publish: () => Promise.reject(new BusUnavailableError('down')) };
    expect(() =>
      new BusPolicyChangeNotifier(bus, logger).changed({ projectId: 'p1', change: 'created', policyId: 'x' }),
    ).not.toThrow();
    await new Promise((r) => setTimeout(r, 10));
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ projectId: 'p1', change: 'created' }),
      'policy change hint not published',
    );
  });
});
