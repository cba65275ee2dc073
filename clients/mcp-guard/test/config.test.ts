import { parseInvocation, serverEnvironment, type GuardConfig } from '../src/config';
import { UsageError } from '../src/errors';

const env = { WARDEN_URL: 'http://127.0.0.1:7400', WARDEN_API_KEY: 'aw_key' };
const run = (argv: string[], e: Record<string, string | undefined> = env): GuardConfig => {
  const inv = parseInvocation(argv, e);
  if (inv.kind !== 'run') throw new Error(`expected run, got ${inv.kind}`);
  return inv.config;
};
const usage = (argv: string[], e: Record<string, string | undefined> = env): UsageError => {
  try {
    parseInvocation(argv, e);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('no UsageError');
};

describe('parseInvocation', () => {
  it('takes flags before -- and the server command, untouched, after it', () => {
    const c = run(['--mode', 'enforce', '--agent-key', 'fs', '--', 'npx', '-y', 'server', '--mode', 'x']);
    expect(c).toMatchObject({
      command: 'npx',
      args: ['-y', 'server', '--mode', 'x'],
      mode: 'enforce',
      agentKey: 'fs',
      baseUrl: 'http://127.0.0.1:7400',
      apiKey: 'aw_key',
      enabled: true,
      logLevel: 'info',
    });
  });

  it('reads the environment when no flag is given, flags first', () => {
    const c = run(['--url', 'http://other:1', '--', 'srv'], {
      ...env,
      WARDEN_AGENT_KEY: 'from-env',
      WARDEN_AGENT_VERSION: '2.0',
      WARDEN_ENVIRONMENT: 'prod',
      WARDEN_LOG_LEVEL: 'warn',
    });
    expect(c).toMatchObject({
      baseUrl: 'http://other:1',
      agentKey: 'from-env',
      agentVersion: '2.0',
      environment: 'prod',
      logLevel: 'warn',
    });
    expect(run(['--', 'srv'], { WARDEN_BASE_URL: 'http://base:2', WARDEN_API_KEY: 'k' }).baseUrl).toBe(
      'http://base:2',
    );
  });

  it('leaves mode and fail mode to the client when no flag sets them', () => {
    const c = run(['--', 'srv'], { ...env, WARDEN_MODE: 'enforce' });
    expect(c.mode).toBeUndefined();
    expect(c.failMode).toBeUndefined();
  });

  it('names the flag or variable at fault', () => {
    expect(usage(['--mode', 'strict', '--', 'srv']).option).toBe('--mode');
    expect(usage(['--fail-mode', 'maybe', '--', 'srv']).option).toBe('--fail-mode');
    expect(usage(['--approval-timeout-ms', '-5', '--', 'srv']).option).toBe('--approval-timeout-ms');
    expect(usage(['--flush-interval-ms', '1.5', '--', 'srv']).option).toBe('--flush-interval-ms');
    expect(usage(['--nope', '--', 'srv']).option).toBe('--nope');
    expect(usage(['--mode', 'enforce']).option).toBe('command');
    expect(usage(['npx', 'server']).option).toBe('arguments');
    expect(usage(['--', 'srv'], { WARDEN_API_KEY: 'k' }).option).toBe('--url');
    expect(usage(['--', 'srv'], { WARDEN_URL: 'http://x' }).option).toBe('--api-key');
    expect(usage(['--url', 'ftp://x', '--', 'srv']).option).toBe('--url');
    expect(usage(['--', 'srv'], { ...env, WARDEN_ENABLED: 'perhaps' }).option).toBe('WARDEN_ENABLED');
    expect(usage(['--mode', 'strict', '--', 'srv']).code).toBe('usage_invalid');
  });

  it('serves Streamable HTTP with --http, on loopback unless told otherwise', () => {
    expect(run(['--', 'srv'])).toMatchObject({ httpPort: undefined, httpHost: '127.0.0.1' });
    expect(run(['--http', '0', '--', 'srv'])).toMatchObject({ httpPort: 0, httpHost: '127.0.0.1' });
    expect(run(['--http', '8931', '--http-host', '0.0.0.0', '--', 'srv'])).toMatchObject({
      httpPort: 8931,
      httpHost: '0.0.0.0',
    });
    expect(usage(['--http', '70000', '--', 'srv']).option).toBe('--http');
  });

  it('needs no URL or key when disabled', () => {
    expect(run(['--', 'srv'], { WARDEN_ENABLED: 'false' })).toMatchObject({ enabled: false, command: 'srv' });
  });

  it('answers --help and --version without a command', () => {
    expect(parseInvocation(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseInvocation(['-v'], {})).toEqual({ kind: 'version' });
  });
});

describe('serverEnvironment', () => {
  it('passes the environment on, less every WARDEN_ variable', () => {
    expect(
      serverEnvironment({ PATH: '/bin', GITHUB_TOKEN: 't', WARDEN_API_KEY: 'secret', WARDEN_URL: 'u' }),
    ).toEqual({
      PATH: '/bin',
      GITHUB_TOKEN: 't',
    });
  });
});
