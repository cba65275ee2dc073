import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, LlmPricesFileEnv, parseEnv } from '../src';

/** `WARDEN_LLM_PRICES_FILE` is read and validated by the one parseEnv (docs/architecture.md#llm-calls). */
describe('WARDEN_LLM_PRICES_FILE', () => {
  const Schema = z.object({ WARDEN_LLM_PRICES_FILE: LlmPricesFileEnv.optional() });
  const dir = mkdtempSync(join(tmpdir(), 'warden-prices-'));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('parses to the rows of a valid file', () => {
    const p = file(
      'ok.json',
      JSON.stringify({ prices: [{ provider: 'acme', model: 'm', inputPerMTok: 1, outputPerMTok: 2 }] }),
    );
    expect(parseEnv(Schema, { WARDEN_LLM_PRICES_FILE: p }).WARDEN_LLM_PRICES_FILE).toEqual([
      { provider: 'acme', model: 'm', inputPerMTok: 1, outputPerMTok: 2 },
    ]);
  });

  it('is optional', () => {
    expect(parseEnv(Schema, {}).WARDEN_LLM_PRICES_FILE).toBeUndefined();
  });

  it.each([
    ['a missing file', join(dir, 'absent.json'), /cannot read/],
    ['a file that is not JSON', 'not-json', /is not JSON/],
    ['a negative price', 'negative', /prices\.0\.inputPerMTok/],
    ['an unknown key', 'unknown-key', /prices\.0/],
  ])('fails the start with a ConfigError naming the variable for %s', (_what, name, message) => {
    const contents: Record<string, string> = {
      'not-json': '{ prices: ',
      negative: JSON.stringify({
        prices: [{ provider: 'p', model: 'm', inputPerMTok: -1, outputPerMTok: 1 }],
      }),
      'unknown-key': JSON.stringify({ prices: [{ provider: 'p', model: 'm', input: 1, outputPerMTok: 1 }] }),
    };
    const p = contents[name] !== undefined ? file(`${name}.json`, contents[name]) : name;
    let error: unknown;
    try {
      parseEnv(Schema, { WARDEN_LLM_PRICES_FILE: p });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    expect(e.issues[0]?.variable).toBe('WARDEN_LLM_PRICES_FILE');
    expect(e.message).toMatch(message);
  });
});
