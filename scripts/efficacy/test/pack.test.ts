import fs from 'node:fs';
import { createEngine, validatePolicy, type EvaluationInput, type StoredPolicy } from '@agent-warden/policy';
import { PACKS } from '../pack';

/**
 * The prompt-injection pack (docs/guardrails.md "Prompt-injection pack"): both levels validate, the
 * classes recognise generic tool names and leave reads out, strict stops everything balanced stops,
 * and neither file holds an identifier-like value (the pack names no IBAN, address or URL).
 */
function engineOf(level: string) {
  const set = JSON.parse(fs.readFileSync(PACKS[level]!, 'utf8')) as { policies: unknown[] };
  const policies: StoredPolicy[] = set.policies.map((p, i) => {
    const v = validatePolicy(p);
    if (!v.ok) throw new Error(`${level} policy ${i}: ${JSON.stringify(v.errors)}`);
    return { id: `${level}-${i}`, version: 1, ...v.policy };
  });
  return createEngine(policies);
}

const balanced = engineOf('balanced');
const strict = engineOf('strict');
const decide = (engine: ReturnType<typeof engineOf>, input: EvaluationInput) =>
  engine.evaluate(input, 'enforce').policyDecision;

/** A call of `tool` whose one argument `to` has the given provenance, in a session with `seen` instruction sightings. */
function input(
  tool: string,
  leaf: { origin: string; tainted?: boolean; instructed?: boolean },
  seen = 0,
  args: Record<string, unknown> = { to: 'x' },
): EvaluationInput {
  return {
    tool: { name: tool },
    arguments: args,
    provenance: {
      arguments: [{ path: 'to', tainted: false, instructed: false, ...leaf }],
      session: { untrustedInstructions: seen },
    },
  };
}

const USER = { origin: 'user' };
const TOOL = { origin: 'tool', tainted: true };
const INSTRUCTED = { origin: 'tool', tainted: true, instructed: true };

describe('prompt-injection pack', () => {
  test.each([
    'send_money',
    'transferFunds',
    'stripe.refund',
    'schedule_transaction',
    'send_email',
    'slack.postMessage',
    'publish_post',
    'share_document',
    'invite_member',
    'update_password',
    'rotate_api_key',
    'delete_repo',
    'remove_user',
    'book_flight',
    'cancel_order',
    'create_calendar_event',
    'fetch_url',
  ])('%s is a sensitive class: blocked with an instructed argument, held after instructions', (tool) => {
    expect(decide(balanced, input(tool, INSTRUCTED, 1))).toBe('block');
    expect(decide(balanced, input(tool, USER, 1))).toBe('require_approval');
    expect(decide(balanced, input(tool, TOOL, 0))).toBe('allow');
    expect(decide(strict, input(tool, USER, 1))).toBe('block');
    expect(decide(strict, input(tool, TOOL, 0))).toBe('require_approval');
  });

  test.each(['get_transactions', 'list_emails', 'search_files', 'read_channel_messages', 'calculate'])(
    '%s is a read: only an instructed argument stops it',
    (tool) => {
      expect(decide(balanced, input(tool, USER, 1))).toBe('allow');
      expect(decide(balanced, input(tool, INSTRUCTED, 1))).toBe('require_approval');
      expect(decide(strict, input(tool, TOOL, 1))).toBe('allow');
      expect(decide(strict, input(tool, INSTRUCTED, 1))).toBe('block');
    },
  );

  test('a shell command counts only when it reaches the network', () => {
    const shell = (command: string, leaf = USER) => input('bash', leaf, 1, { command });
    expect(decide(balanced, shell('curl -s https://example.invalid/x | head'))).toBe('require_approval');
    expect(decide(balanced, shell('scp out.tar host:/tmp'))).toBe('require_approval');
    expect(decide(balanced, shell('ls -la && git status'))).toBe('allow');
    expect(decide(strict, shell('wget example.invalid', TOOL))).toBe('block');
  });

  test('an action.type names the class when the tool name does not', () => {
    expect(decide(balanced, { ...input('do_it', USER, 1), action: { type: 'payment' } })).toBe(
      'require_approval',
    );
  });

  test('a call without provenance matches nothing; benign provenance is allowed at both levels', () => {
    expect(decide(balanced, { tool: { name: 'send_money' }, arguments: { to: 'x' } })).toBe('allow');
    expect(decide(strict, { tool: { name: 'send_money' }, arguments: { to: 'x' } })).toBe('allow');
    expect(decide(strict, input('send_money', USER, 0))).toBe('allow');
  });

  test('strict stops everything balanced stops', () => {
    const rank = { allow: 0, warn: 0, require_approval: 1, block: 2 } as const;
    for (const tool of ['send_money', 'get_balance', 'bash', 'fetch_url'])
      for (const leaf of [USER, TOOL, INSTRUCTED])
        for (const seen of [0, 1]) {
          const i = input(tool, leaf, seen, { to: 'x', command: 'curl x' });
          expect(rank[decide(strict, i)]).toBeGreaterThanOrEqual(rank[decide(balanced, i)]);
        }
  });

  test('the files hold no identifier-like value (IBAN, e-mail address, URL, long number)', () => {
    for (const file of Object.values(PACKS)) {
      const text = fs.readFileSync(file, 'utf8');
      expect(text).not.toMatch(/\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b/);
      expect(text).not.toMatch(/[\w.+-]+@[\w-]+\.[\w.]+/);
      expect(text).not.toMatch(/https?:\/\/|www\./);
      expect(text).not.toMatch(/\d{4,}/);
    }
  });
});
