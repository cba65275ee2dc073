import { ConfigurationError, DEFAULTS } from '../src';
import { resolveOptions } from '../src/options';

const base = { baseUrl: 'http://localhost:4000/', apiKey: 'k', agent: { key: 'my-agent' } };

describe('resolveOptions', () => {
  it('applies the defaults', () => {
    const o = resolveOptions(base, {});
    expect(o).toMatchObject({
      enabled: true,
      baseUrl: 'http://localhost:4000',
      mode: 'monitor',
      failMode: 'open',
      ...DEFAULTS,
    });
    expect(o.approvalTimeoutMs).toBeUndefined();
  });

  it('fails closed by default in enforce mode', () => {
    expect(resolveOptions({ ...base, mode: 'enforce' }, {}).failMode).toBe('closed');
    expect(resolveOptions({ ...base, mode: 'enforce', failMode: 'open' }, {}).failMode).toBe('open');
  });

  it('reads environment variables when the argument is absent, and prefers the argument', () => {
    const env = {
      WARDEN_BASE_URL: 'https://warden.example.com',
      WARDEN_API_KEY: 'env-key',
      WARDEN_MODE: 'enforce',
      WARDEN_FLUSH_INTERVAL_MS: '500',
      WARDEN_MAX_BATCH_SIZE: '50',
      WARDEN_MAX_QUEUE_SIZE: '100',
      WARDEN_FAIL_MODE: 'open',
      WARDEN_ENABLED: 'yes',
    };
    const fromEnv = resolveOptions({ agent: { key: 'a' } }, env);
    expect(fromEnv).toMatchObject({
      enabled: true,
      baseUrl: 'https://warden.example.com',
      apiKey: 'env-key',
      mode: 'enforce',
      flushIntervalMs: 500,
      maxBatchSize: 50,
      maxQueueSize: 100,
      failMode: 'open',
    });
    const fromArgs = resolveOptions({ ...base, maxBatchSize: 10, mode: 'monitor' }, env);
    expect(fromArgs).toMatchObject({
      baseUrl: 'http://localhost:4000',
      apiKey: 'k',
      maxBatchSize: 10,
      mode: 'monitor',
    });
  });

  it('needs nothing else when disabled', () => {
    expect(resolveOptions({}, { WARDEN_ENABLED: 'false' }).enabled).toBe(false);
    expect(resolveOptions({ enabled: false }, {}).enabled).toBe(false);
  });

  it.each([
    [{ ...base, baseUrl: undefined }, {}, 'baseUrl'],
    [{ ...base, baseUrl: 'ftp://x' }, {}, 'baseUrl'],
    [{ ...base, apiKey: undefined }, {}, 'apiKey'],
    [{ ...base, agent: { key: 'bad key!' } }, {}, 'agent.key'],
    [{ ...base, maxBatchSize: 0 }, {}, 'maxBatchSize'],
    [{ ...base, maxBatchSize: 501 }, {}, 'maxBatchSize'],
    [{ ...base, flushIntervalMs: 1.5 }, {}, 'flushIntervalMs'],
    [{ ...base, retryBaseDelayMs: 100, retryMaxDelayMs: 10 }, {}, 'retryMaxDelayMs'],
    [{ ...base, mode: 'strict' as never }, {}, 'mode'],
    [base, { WARDEN_FAIL_MODE: 'sometimes' }, 'failMode'],
    [base, { WARDEN_MAX_QUEUE_SIZE: 'many' }, 'maxQueueSize'],
    [base, { WARDEN_ENABLED: 'perhaps' }, 'enabled'],
    [{ ...base, sessionId: 'not-a-uuid' }, {}, 'sessionId'],
  ])('throws ConfigurationError for a bad value (%#)', (options, env, option) => {
    let thrown: unknown;
    try {
      resolveOptions(options, env);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect(thrown).toMatchObject({ code: 'configuration_invalid', option });
  });
});
