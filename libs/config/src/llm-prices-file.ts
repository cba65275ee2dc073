import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { LlmPriceFile, type LlmPrice } from '@agent-warden/contracts';

/**
 * `WARDEN_LLM_PRICES_FILE`: the path of the operator's LLM price file (JSON,
 * `{ "prices": [{ provider, model, inputPerMTok, cachedInputPerMTok?, outputPerMTok }] }`,
 * contracts `LlmPriceFile`; docs/architecture.md#llm-calls), read and validated when the
 * environment is parsed, so a missing, unreadable or invalid file fails the start through
 * {@link parseEnv}'s `ConfigError` naming the variable, the file and the offending entry. Parses to
 * the file's rows (merged over the defaults by contracts `createPriceTable`).
 */
export const LlmPricesFileEnv = z.string().transform((path, ctx): LlmPrice[] => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `cannot read ${path}: ${(err as Error).message}` });
    return z.NEVER;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `${path} is not JSON: ${(err as Error).message}` });
    return z.NEVER;
  }
  const parsed = LlmPriceFile.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues
      .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    ctx.addIssue({ code: 'custom', message: `${path} is not a price file: ${where}` });
    return z.NEVER;
  }
  return parsed.data.prices;
});
