import fs from 'node:fs';
import path from 'node:path';
import { AgentEvent, EVENT_TYPES, EventBatchRequest } from '../src';
import { buildVectors, vectorSpecs, VECTORS_DIR } from '../scripts/generate-vectors';

/**
 * The committed JSON test vectors (`libs/contracts/vectors/`, read by the Python client's tests)
 * must be what `scripts/generate-vectors.ts` produces from the schemas now, and every example must
 * satisfy its zod schema.
 */
describe('contract test vectors', () => {
  const generated = buildVectors();

  test('the committed files equal what the generator produces (run it when this fails)', () => {
    const committed = fs
      .readdirSync(VECTORS_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(committed).toEqual(Object.keys(generated).sort());
    for (const [name, value] of Object.entries(generated)) {
      const onDisk: unknown = JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, name), 'utf8'));
      // Compared as JSON values: the files are formatted by prettier.
      expect({ name, value: onDisk }).toEqual({ name, value: JSON.parse(JSON.stringify(value)) });
    }
  });

  test.each(vectorSpecs().flatMap((s) => s.examples.map((e) => [s.name, e.name, s, e] as const)))(
    '%s / %s validates against its zod schema',
    (_vector, _example, spec, example) => {
      const r = spec.zod.safeParse(example.body);
      expect(r.success ? 'valid' : r.error.message).toBe('valid');
    },
  );

  test('the event batch holds one event of each of the 14 types, each a valid AgentEvent', () => {
    const spec = vectorSpecs().find((s) => s.name === 'event-batch-request')!;
    const body = spec.examples[0]!.body as { events: Array<{ type: string; sequence: number }> };
    expect(EventBatchRequest.safeParse(body).success).toBe(true);
    expect(body.events.map((e) => e.type).sort()).toEqual([...EVENT_TYPES].sort());
    expect(body.events.map((e) => e.sequence)).toEqual(body.events.map((_, i) => i + 1));
    for (const e of body.events) expect(AgentEvent.safeParse(e).success).toBe(true);
  });

  test('every vector carries a JSON Schema (draft 2020-12)', () => {
    for (const value of Object.values(generated)) {
      const v = value as { schema: { $schema?: string }; examples: unknown[] };
      expect(v.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(v.examples.length).toBeGreaterThan(0);
    }
  });
});
