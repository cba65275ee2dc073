import {
  createPriceTable,
  DEFAULT_LLM_PRICES,
  findPrice,
  LlmPriceFile,
  priceLlmCall,
} from '../src/llm-pricing';

/** The pricing rule of docs/architecture.md#llm-calls. */
describe('LLM price table', () => {
  const table = createPriceTable();

  it('matches the exact model first, then the longest prefix ending at a separator', () => {
    expect(findPrice(table, 'openai', 'gpt-4o')?.model).toBe('gpt-4o');
    // A dated snapshot takes its family's price; the longer family (gpt-4o-mini) beats gpt-4o.
    expect(findPrice(table, 'openai', 'gpt-4o-2024-08-06')?.model).toBe('gpt-4o');
    expect(findPrice(table, 'openai', 'gpt-4o-mini-2024-07-18')?.model).toBe('gpt-4o-mini');
    expect(findPrice(table, 'anthropic', 'claude-sonnet-4-5-20250929')?.model).toBe('claude-sonnet-4-5');
    expect(findPrice(table, 'anthropic', 'claude-sonnet-4-20250514')?.model).toBe('claude-sonnet-4');
    // No separator after the prefix: another model, not a snapshot.
    expect(findPrice(table, 'openai', 'gpt-4ox')).toBeUndefined();
    expect(findPrice(table, 'openai', 'gpt-5.1')).toBeUndefined();
  });

  it('compares provider and model without case, and keeps to the provider named', () => {
    expect(findPrice(table, 'OpenAI', 'GPT-4o')?.inputPerMTok).toBe(2.5);
    expect(findPrice(table, 'anthropic', 'gpt-4o')).toBeUndefined();
    // Without a provider any provider's row may match.
    expect(findPrice(table, undefined, 'claude-3-5-haiku-20241022')?.provider).toBe('anthropic');
  });

  it('has no price for a model two providers price equally well when the call names no provider', () => {
    const t = createPriceTable([
      { provider: 'a', model: 'shared', inputPerMTok: 1, outputPerMTok: 1 },
      { provider: 'b', model: 'shared', inputPerMTok: 2, outputPerMTok: 2 },
    ]);
    expect(findPrice(t, undefined, 'shared')).toBeUndefined();
    expect(findPrice(t, 'b', 'shared')?.inputPerMTok).toBe(2);
  });

  it("lets the operator's rows replace a default row and add new ones", () => {
    const t = createPriceTable([
      { provider: 'OpenAI', model: 'gpt-4o', inputPerMTok: 1, outputPerMTok: 2 },
      { provider: 'acme', model: 'house-model', inputPerMTok: 0.5, outputPerMTok: 1 },
    ]);
    expect(t.rows).toHaveLength(DEFAULT_LLM_PRICES.length + 1);
    expect(findPrice(t, 'openai', 'gpt-4o-2024-11-20')).toMatchObject({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(findPrice(t, 'acme', 'house-model-v2')?.inputPerMTok).toBe(0.5);
  });

  it('prices input, cached input and output tokens per million', () => {
    // gpt-4o: 2.50 / 1.25 cached / 10.00 per million.
    const c = priceLlmCall(table, {
      provider: 'openai',
      model: 'gpt-4o',
      inputTokens: 1000,
      cachedInputTokens: 400,
      outputTokens: 200,
    });
    expect(c.costSource).toBe('price_table');
    expect(c.costUsd).toBeCloseTo((600 * 2.5 + 400 * 1.25 + 200 * 10) / 1e6, 12);
  });

  it('uses the input price for cached tokens when the row has no cached price', () => {
    const t = createPriceTable([{ provider: 'x', model: 'm', inputPerMTok: 4, outputPerMTok: 8 }]);
    const c = priceLlmCall(t, {
      provider: 'x',
      model: 'm',
      inputTokens: 10,
      cachedInputTokens: 5,
      outputTokens: 1,
    });
    expect(c.costUsd).toBeCloseTo((10 * 4 + 8) / 1e6, 12);
  });

  it('prices by the response model (the served snapshot) before the requested one', () => {
    const c = priceLlmCall(table, {
      provider: 'openai',
      model: 'gpt-4o',
      responseModel: 'gpt-4o-mini-2024-07-18',
      inputTokens: 1_000_000,
      outputTokens: 0,
    });
    expect(c.costUsd).toBeCloseTo(0.15, 12);
  });

  it("takes the caller's cost as given, even 0", () => {
    expect(priceLlmCall(table, { model: 'gpt-4o', inputTokens: 10, costUsd: 0.5 })).toEqual({
      costUsd: 0.5,
      costSource: 'client',
    });
    expect(priceLlmCall(table, { model: 'unknown-model', costUsd: 0 })).toEqual({
      costUsd: 0,
      costSource: 'client',
    });
  });

  it('leaves the cost unknown (null, never 0) for a model not in the table or without token counts', () => {
    expect(
      priceLlmCall(table, { provider: 'acme', model: 'house-model', inputTokens: 10, outputTokens: 5 }),
    ).toEqual({
      costUsd: null,
      costSource: null,
    });
    expect(priceLlmCall(table, { provider: 'openai', model: 'gpt-4o', outputTokens: 5 })).toEqual({
      costUsd: null,
      costSource: null,
    });
  });

  it('accepts a valid price file and refuses unknown keys and negative prices', () => {
    expect(
      LlmPriceFile.safeParse({ prices: [{ provider: 'p', model: 'm', inputPerMTok: 1, outputPerMTok: 2 }] })
        .success,
    ).toBe(true);
    expect(
      LlmPriceFile.safeParse({ prices: [{ provider: 'p', model: 'm', inputPerMTok: -1, outputPerMTok: 2 }] })
        .success,
    ).toBe(false);
    expect(
      LlmPriceFile.safeParse({ prices: [{ provider: 'p', model: 'm', input: 1, outputPerMTok: 2 }] }).success,
    ).toBe(false);
  });
});
