import type { ActivityStats, LlmUsage } from '../api/types';
import { tokens, usagePoints, usd } from './llm';

describe('usd', () => {
  it('shows cents from a cent up, 3 significant digits below, and unknown for null (never $0)', () => {
    expect(usd(12.345)).toBe('$12.35');
    expect(usd(2.004)).toBe('$2.00');
    expect(usd(0.000435)).toBe('$0.000435');
    expect(usd(0.0012345)).toBe('$0.00123');
    expect(usd(0)).toBe('$0');
    expect(usd(null)).toBe('unknown');
  });
});

describe('tokens', () => {
  it('abbreviates thousands and millions', () => {
    expect(tokens(950)).toBe('950');
    expect(tokens(12_345)).toBe('12.3k');
    expect(tokens(1_003_050)).toBe('1M');
    expect(tokens(4_560_000)).toBe('4.56M');
    expect(tokens(null)).toBe('—');
  });
});

describe('usagePoints', () => {
  const zero = {
    calls: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: null,
    unpricedCalls: 0,
  };
  const none = { p50: null, p95: null, p99: null };
  it('joins usage and activity per bucket, in time order, with the error rate of tool and LLM calls', () => {
    const usage = {
      items: [
        { ...zero, start: '2026-01-01T01:00:00.000Z', latencyMs: none },
        {
          ...zero,
          start: '2026-01-01T00:00:00.000Z',
          calls: 2,
          inputTokens: 10,
          outputTokens: 5,
          costUsd: 0.5,
          latencyMs: { p50: 100, p95: 190, p99: 198 },
        },
      ],
    } as unknown as LlmUsage;
    const activity = {
      items: [
        {
          start: '2026-01-01T00:00:00.000Z',
          events: 7,
          toolCalls: 2,
          toolFailures: 1,
          llmCalls: 2,
          llmErrors: 1,
        },
        {
          start: '2026-01-01T01:00:00.000Z',
          events: 0,
          toolCalls: 0,
          toolFailures: 0,
          llmCalls: 0,
          llmErrors: 0,
        },
      ],
    } as unknown as ActivityStats;
    const points = usagePoints(usage, activity);
    expect(points.map((p) => p.time)).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z']);
    expect(points[0]).toMatchObject({
      inputTokens: 10,
      outputTokens: 5,
      costUsd: 0.5,
      p95: 190,
      events: 7,
      errorRate: 50,
    });
    expect(points[1]).toMatchObject({ costUsd: null, p50: null, errorRate: null });
  });
});
