import { z } from 'zod';

/**
 * The price table of LLM calls and the pricing rule (docs/architecture.md#llm-calls). Pure: the
 * operator's file is read by libs/config (`WARDEN_LLM_PRICES_FILE`); this module validates its
 * shape, merges it over {@link DEFAULT_LLM_PRICES} and prices one call.
 */

/** A price in USD per million tokens (≥ 0, at most $100,000 per million). */
const PerMTok = z.number().nonnegative().max(100_000);

/**
 * One row of the price table: USD per million tokens of one model of one provider.
 * - `provider`: `gen_ai.provider.name` (`openai`, `anthropic`, `gcp.gemini`…), compared without case.
 * - `model`: the model name, or the start of a family of names (`gpt-4o` prices `gpt-4o-2024-08-06`).
 * - `cachedInputPerMTok`: input tokens read from the prompt cache; default `inputPerMTok`.
 */
export const LlmPrice = z
  .object({
    provider: z.string().min(1).max(100),
    model: z.string().min(1).max(200),
    inputPerMTok: PerMTok,
    cachedInputPerMTok: PerMTok.optional(),
    outputPerMTok: PerMTok,
  })
  .strict();
export type LlmPrice = z.infer<typeof LlmPrice>;

/**
 * The operator's price file (`WARDEN_LLM_PRICES_FILE`, JSON): `{ "prices": [LlmPrice…] }`. A row
 * with the provider and model of a default row replaces it; any other row is added.
 */
export const LlmPriceFile = z.object({ prices: z.array(LlmPrice).max(10_000) }).strict();
export type LlmPriceFile = z.infer<typeof LlmPriceFile>;

/**
 * Prices of widely used models as their providers publish them on their pricing pages (standard
 * tier, prompts up to 200k tokens where the price depends on length; Anthropic's cache reads as
 * `cachedInputPerMTok`). Operators correct or extend them with `WARDEN_LLM_PRICES_FILE`.
 */
export const DEFAULT_LLM_PRICES: readonly LlmPrice[] = [
  // OpenAI (https://openai.com/api/pricing/)
  { provider: 'openai', model: 'gpt-5', inputPerMTok: 1.25, cachedInputPerMTok: 0.125, outputPerMTok: 10 },
  {
    provider: 'openai',
    model: 'gpt-5-mini',
    inputPerMTok: 0.25,
    cachedInputPerMTok: 0.025,
    outputPerMTok: 2,
  },
  {
    provider: 'openai',
    model: 'gpt-5-nano',
    inputPerMTok: 0.05,
    cachedInputPerMTok: 0.005,
    outputPerMTok: 0.4,
  },
  { provider: 'openai', model: 'gpt-4.1', inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
  {
    provider: 'openai',
    model: 'gpt-4.1-mini',
    inputPerMTok: 0.4,
    cachedInputPerMTok: 0.1,
    outputPerMTok: 1.6,
  },
  {
    provider: 'openai',
    model: 'gpt-4.1-nano',
    inputPerMTok: 0.1,
    cachedInputPerMTok: 0.025,
    outputPerMTok: 0.4,
  },
  { provider: 'openai', model: 'gpt-4o', inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
  {
    provider: 'openai',
    model: 'gpt-4o-mini',
    inputPerMTok: 0.15,
    cachedInputPerMTok: 0.075,
    outputPerMTok: 0.6,
  },
  { provider: 'openai', model: 'o3', inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
  { provider: 'openai', model: 'o3-pro', inputPerMTok: 20, outputPerMTok: 80 },
  { provider: 'openai', model: 'o3-mini', inputPerMTok: 1.1, cachedInputPerMTok: 0.55, outputPerMTok: 4.4 },
  { provider: 'openai', model: 'o4-mini', inputPerMTok: 1.1, cachedInputPerMTok: 0.275, outputPerMTok: 4.4 },
  { provider: 'openai', model: 'text-embedding-3-small', inputPerMTok: 0.02, outputPerMTok: 0 },
  { provider: 'openai', model: 'text-embedding-3-large', inputPerMTok: 0.13, outputPerMTok: 0 },
  // Anthropic (https://www.anthropic.com/pricing#api)
  {
    provider: 'anthropic',
    model: 'claude-opus-4',
    inputPerMTok: 15,
    cachedInputPerMTok: 1.5,
    outputPerMTok: 75,
  },
  {
    provider: 'anthropic',
    model: 'claude-opus-4-1',
    inputPerMTok: 15,
    cachedInputPerMTok: 1.5,
    outputPerMTok: 75,
  },
  {
    provider: 'anthropic',
    model: 'claude-opus-4-5',
    inputPerMTok: 5,
    cachedInputPerMTok: 0.5,
    outputPerMTok: 25,
  },
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4',
    inputPerMTok: 3,
    cachedInputPerMTok: 0.3,
    outputPerMTok: 15,
  },
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    inputPerMTok: 3,
    cachedInputPerMTok: 0.3,
    outputPerMTok: 15,
  },
  {
    provider: 'anthropic',
    model: 'claude-3-7-sonnet',
    inputPerMTok: 3,
    cachedInputPerMTok: 0.3,
    outputPerMTok: 15,
  },
  {
    provider: 'anthropic',
    model: 'claude-3-5-sonnet',
    inputPerMTok: 3,
    cachedInputPerMTok: 0.3,
    outputPerMTok: 15,
  },
  {
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    inputPerMTok: 1,
    cachedInputPerMTok: 0.1,
    outputPerMTok: 5,
  },
  {
    provider: 'anthropic',
    model: 'claude-3-5-haiku',
    inputPerMTok: 0.8,
    cachedInputPerMTok: 0.08,
    outputPerMTok: 4,
  },
  // Google Gemini API (https://ai.google.dev/gemini-api/docs/pricing)
  {
    provider: 'gcp.gemini',
    model: 'gemini-2.5-pro',
    inputPerMTok: 1.25,
    cachedInputPerMTok: 0.31,
    outputPerMTok: 10,
  },
  {
    provider: 'gcp.gemini',
    model: 'gemini-2.5-flash',
    inputPerMTok: 0.3,
    cachedInputPerMTok: 0.075,
    outputPerMTok: 2.5,
  },
  {
    provider: 'gcp.gemini',
    model: 'gemini-2.0-flash',
    inputPerMTok: 0.1,
    cachedInputPerMTok: 0.025,
    outputPerMTok: 0.4,
  },
];

/** Characters that may follow a model prefix: `gpt-4o` prices `gpt-4o-2024-08-06`, never `gpt-4ox`. */
const PREFIX_BOUNDARY = /^[-:@]/;

/** A price table ready to look up (see {@link createPriceTable}). */
export interface PriceTable {
  /** Rows after the operator's file was merged over the defaults, keys lower-cased. */
  readonly rows: readonly LlmPrice[];
}

const keyOf = (p: { provider: string; model: string }) =>
  `${p.provider.toLowerCase()}\u0000${p.model.toLowerCase()}`;

/**
 * The table of `defaults` with `overrides` merged over it: an override with the provider and model
 * of a default row (without case) replaces it, any other is added.
 */
export function createPriceTable(
  overrides: readonly LlmPrice[] = [],
  defaults: readonly LlmPrice[] = DEFAULT_LLM_PRICES,
): PriceTable {
  const m = new Map<string, LlmPrice>();
  for (const p of [...defaults, ...overrides])
    m.set(keyOf(p), { ...p, provider: p.provider.toLowerCase(), model: p.model.toLowerCase() });
  return { rows: [...m.values()] };
}

/**
 * The price row of a model: the row whose model equals `model` (without case), else the row whose
 * model is the longest prefix of it followed by `-`, `:` or `@` (a dated snapshot such as
 * `claude-sonnet-4-20250514`). With a `provider`, only that provider's rows count; without one, a
 * model that two providers' rows match equally well has no price. Undefined: not in the table.
 */
export function findPrice(
  table: PriceTable,
  provider: string | undefined,
  model: string,
): LlmPrice | undefined {
  const name = model.toLowerCase();
  const prov = provider?.toLowerCase();
  let best: LlmPrice[] = [];
  let bestLen = -1;
  for (const row of table.rows) {
    if (prov !== undefined && row.provider !== prov) continue;
    const exact = row.model === name;
    if (!exact && !(name.startsWith(row.model) && PREFIX_BOUNDARY.test(name.slice(row.model.length))))
      continue;
    // An exact match beats any prefix (length + 1 is more than any prefix of the same name).
    const len = exact ? name.length + 1 : row.model.length;
    if (len > bestLen) {
      best = [row];
      bestLen = len;
    } else if (len === bestLen) best.push(row);
  }
  return best.length === 1 ? best[0] : undefined;
}

/** Where the cost of a stored call came from; null: unknown. */
export type LlmCostSource = 'client' | 'price_table';

/** The cost of one call, USD, and its source; `costUsd` null means unknown (never 0 for unknown). */
export interface LlmCost {
  costUsd: number | null;
  costSource: LlmCostSource | null;
}

/**
 * The cost of one LLM call (docs/architecture.md#llm-calls):
 * 1. the caller's `costUsd` when given (`client`);
 * 2. else, when the table prices the call's model (`responseModel` first, the served snapshot, then
 *    `model`; {@link findPrice}) and `inputTokens` is known:
 *    `((input − cached) × inputPerMTok + cached × cachedInputPerMTok + output × outputPerMTok) / 10⁶`,
 *    a missing `outputTokens` or `cachedInputTokens` counting as 0 (`price_table`);
 * 3. else unknown (`null`, `null`).
 */
export function priceLlmCall(
  table: PriceTable,
  call: {
    provider?: string;
    model: string;
    responseModel?: string;
    inputTokens?: number;
    outputTokens?: number;
    cachedInputTokens?: number;
    costUsd?: number;
  },
): LlmCost {
  if (call.costUsd !== undefined) return { costUsd: call.costUsd, costSource: 'client' };
  if (call.inputTokens === undefined) return { costUsd: null, costSource: null };
  const price =
    (call.responseModel !== undefined ? findPrice(table, call.provider, call.responseModel) : undefined) ??
    findPrice(table, call.provider, call.model);
  if (!price) return { costUsd: null, costSource: null };
  const cached = Math.min(call.cachedInputTokens ?? 0, call.inputTokens);
  const cost =
    ((call.inputTokens - cached) * price.inputPerMTok +
      cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
      (call.outputTokens ?? 0) * price.outputPerMTok) /
    1_000_000;
  return { costUsd: cost, costSource: 'price_table' };
}
