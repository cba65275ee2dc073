import {
  AgentEvent,
  cleanJson,
  cleanText,
  GuardRequest,
  INT4_MAX,
  jsonTooDeepAt,
  MAX_JSON_DEPTH,
  newId,
} from '../src';

/** `{ k: { k: … 1 } }` nested `levels` deep, built without recursion. */
function deep(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { k: v };
  return v;
}

describe('what storage cannot hold (docs/decisions.md "What storage cannot hold")', () => {
  test('U+0000 and lone surrogates become U+FFFD; pairs and other text stay', () => {
    expect(cleanText('a\u0000b')).toBe('a\uFFFDb');
    expect(cleanText('\uD800x\uDC00')).toBe('\uFFFDx\uFFFD');
    expect(cleanText('end\uD83D')).toBe('end\uFFFD');
    expect(cleanText('ok \uD83D\uDE00 é')).toBe('ok \uD83D\uDE00 é');
  });

  test('cleanJson cleans keys and values at any depth and keeps __proto__ / constructor as data', () => {
    const v = JSON.parse(
      '{"a\\u0000":[{"__proto__":{"x":"\\ud800"}},"\\udc00"],"constructor":{"prototype":1},"z":2}',
    ) as Record<string, unknown>;
    const c = cleanJson(v);
    expect(Object.keys(c)).toEqual(['a\uFFFD', 'constructor', 'z']);
    const inner = (c['a\uFFFD'] as unknown[])[0] as object;
    expect(Object.getOwnPropertyDescriptor(inner, '__proto__')?.value).toEqual({ x: '\uFFFD' });
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
    expect((c['a\uFFFD'] as unknown[])[1]).toBe('\uFFFD');
    expect(({} as { x?: unknown }).x).toBeUndefined();
    const deeper = cleanJson({ s: deep(100_000), t: 'x\u0000' });
    expect(deeper.t).toBe('x\uFFFD');
  });

  test('depth is measured without recursion and names the path to the first container too deep', () => {
    expect(jsonTooDeepAt(deep(100_000), MAX_JSON_DEPTH)).toEqual(Array(MAX_JSON_DEPTH).fill('k'));
    expect(jsonTooDeepAt(deep(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBeUndefined();
    expect(jsonTooDeepAt({ a: [[1]] }, 2)).toEqual(['a', 0]);
    expect(jsonTooDeepAt('scalar', 0)).toBeUndefined();
  });

  test('payload fields nest at most 64 levels; __proto__ keys survive parsing', () => {
    const agentId = newId();
    const base = { agentId, tool: { name: 't' } };
    expect(GuardRequest.safeParse({ ...base, arguments: deep(MAX_JSON_DEPTH) }).success).toBe(true);
    const tooDeep = GuardRequest.safeParse({ ...base, arguments: deep(MAX_JSON_DEPTH + 1) });
    expect(tooDeep.success).toBe(false);
    expect(tooDeep.error?.issues[0]?.path).toEqual(['arguments', ...Array(MAX_JSON_DEPTH).fill('k')]);
    const args = JSON.parse('{"__proto__":{"p":1},"ok":true}') as object;
    const parsed = GuardRequest.parse({ ...base, arguments: args });
    expect(Object.keys(parsed.arguments!)).toEqual(['__proto__', 'ok']);
  });

  test('sequence fits the int4 column', () => {
    const e = (sequence: number) => ({
      id: newId(),
      type: 'agent.custom',
      time: new Date().toISOString(),
      sessionId: newId(),
      agentId: newId(),
      agentVersionId: newId(),
      sequence,
      data: { name: 'n' },
    });
    expect(AgentEvent.safeParse(e(INT4_MAX)).success).toBe(true);
    const r = AgentEvent.safeParse(e(INT4_MAX + 1));
    expect(r.error?.issues.map((i) => i.path)).toEqual([['sequence']]);
  });
});
