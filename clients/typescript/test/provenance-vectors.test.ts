/**
 * The shared provenance vectors (libs/contracts/provenance/matching-vectors.json), every case,
 * through the client's own store and matcher — the Python client runs the same file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ClientProvenance, leafText, normalize, sourceText } from '../src/provenance';
import { silentLogger } from '../src';

interface VectorSource {
  kind: 'user' | 'tool';
  value: unknown;
  toolName?: string;
  toolCallId?: string;
  instructions?: boolean;
}
interface VectorCase {
  name: string;
  sources: VectorSource[];
  arguments: Record<string, unknown>;
  expected: { arguments: unknown[]; truncated: boolean };
}
interface Vectors {
  normalize: Array<{ input: string; expected: string }>;
  leafText: Array<{ input: string | number; expected: string | null }>;
  cases: VectorCase[];
}

const vectors = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../libs/contracts/provenance/matching-vectors.json'), 'utf8'),
) as Vectors;

describe('matching-vectors.json', () => {
  it.each(vectors.normalize.map((v) => [JSON.stringify(v.input), v] as const))('normalize(%s)', (_, v) => {
    expect(normalize(v.input)).toBe(v.expected);
  });

  it.each(vectors.leafText.map((v) => [JSON.stringify(v.input), v] as const))('leafText(%s)', (_, v) => {
    expect(leafText(v.input)).toBe(v.expected);
  });

  it.each(vectors.cases.map((c) => [c.name, c] as const))('case %s', (_, c) => {
    // The vectors give `instructions` instead of running the detector.
    const given = new Map<string, boolean>();
    const tracker = new ClientProvenance({
      logger: silentLogger,
      detect: (text) => {
        const instructions = given.get(text) ?? false;
        return { instructions, score: instructions ? 1 : 0, rules: instructions ? ['given'] : [] };
      },
    });
    const scope = {
      sessionId: '0193a000-0000-7000-8000-0000000000aa',
      runId: '0193a000-0000-7000-8000-0000000000bb',
    };
    tracker.openRun(scope);
    for (const s of c.sources) {
      if (s.kind === 'user') tracker.trusted(scope, s.value);
      else {
        given.set(sourceText(s.value), s.instructions ?? false);
        tracker.untrusted(scope, s.value, { toolName: s.toolName, toolCallId: s.toolCallId });
      }
    }
    const got = tracker.provenanceOf(scope, c.arguments);
    expect({ arguments: got?.arguments, truncated: got?.truncated }).toEqual(c.expected);
  });

  it('covers every case of the file', () => {
    expect(vectors.cases.length).toBeGreaterThanOrEqual(14);
  });
});
