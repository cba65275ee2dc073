import vectors from '../provenance/instruction-vectors.json';
import { detectInstructions, instructionDetector } from '../src/instruction-detector';

describe('the instruction detector (docs/provenance.md)', () => {
  it.each(vectors.cases.map((c) => [c.name, c] as const))('gives the vector %s', (_name, c) => {
    const found = detectInstructions(c.text);
    expect({ instructions: found.instructions, rules: found.rules }).toEqual({
      instructions: c.instructions,
      rules: c.rules,
    });
  });

  it('reads only the first maxScanChars characters', () => {
    const detect = instructionDetector({
      version: 1,
      threshold: 1,
      maxScanChars: 10,
      rules: [{ id: 'x', weight: 1, pattern: 'ignore', flags: 'i', description: '' }],
    });
    expect(detect('IGNORE this').instructions).toBe(true);
    expect(detect('0123456789 ignore').instructions).toBe(false);
  });
});
