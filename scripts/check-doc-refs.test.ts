import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkDocRefs, githubSlug } from './check-doc-refs';

const ARCHITECTURE = `# Architecture

## Exactly once

## Guard decision

\`\`\`sh
# not a heading (inside a code block)
\`\`\`
`;

const DECISIONS = `# Decisions

**Sign-in throttling.** _2026-11-22 · current._ Failed sign-ins are counted.

**Policy changes reach gateways through a Kafka topic, with a poll of PostgreSQL as the
guarantee.** _2026-11-21 · current._ A hint.
`;

describe('check-doc-refs', () => {
  let root: string;
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'doc-refs-'));
    write('docs/architecture.md', ARCHITECTURE);
    write('docs/decisions.md', DECISIONS);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('passes citations of documents, anchors and titles that exist', () => {
    write(
      'services/gateway/src/a.ts',
      [
        '/** Stored once (docs/architecture.md#exactly-once). */',
        '/** See docs/architecture.md and docs/decisions.md "Sign-in throttling". */',
        '/**',
        ' * Hints (docs/decisions.md "Policy changes reach gateways…"), and the whole title:',
        ' * docs/decisions.md "Policy changes reach gateways through a Kafka topic, with a poll of',
        ' * PostgreSQL as the guarantee".',
        ' */',
      ].join('\n'),
    );
    write('libs/bus/README.md', 'Modes ([architecture](../../docs/architecture.md#guard-decision)).\n');
    write(
      'docs/guide.md',
      [
        '# Guide',
        '',
        'See [decisions](decisions.md#decisions), [arch](./architecture.md) and [the top](#guide).',
        'A format, not a link: `[<Title>](#anchor)`.',
      ].join('\n'),
    );
    expect(checkDocRefs(root)).toEqual([]);
  });

  it('reports DESIGN.md, STYLE.md, missing documents, anchors and titles, with their lines', () => {
    write(
      'services/gateway/src/b.ts',
      [
        '/** Severity (DESIGN.md "Guard decision"). */',
        '// Start-up (STYLE.md "Start-up"), brief in ../shared/DESIGN.md',
        '/** docs/missing.md */',
        '/** docs/architecture.md#no-such-section */',
        '/** docs/decisions.md "Who decided"; docs/architecture.md#guard-decision is fine */',
      ].join('\n'),
    );
    write(
      'libs/bus/README.md',
      'See [gone](../../docs/gone.md) and [bad](../../docs/architecture.md#nope).\n',
    );
    write('docs/guide.md', '# Guide\n\nSee [nowhere](#nowhere).\n');
    const problems = checkDocRefs(root);
    expect(problems.map((p) => `${p.file}:${p.line}`)).toEqual([
      'services/gateway/src/b.ts:1',
      'services/gateway/src/b.ts:2',
      'services/gateway/src/b.ts:2',
      'services/gateway/src/b.ts:3',
      'services/gateway/src/b.ts:4',
      'services/gateway/src/b.ts:5',
      'libs/bus/README.md:1',
      'libs/bus/README.md:1',
      'docs/guide.md:3',
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining('DESIGN.md, which is not in the repository'),
      expect.stringContaining('STYLE.md, which is not in the repository'),
      expect.stringContaining('DESIGN.md, which is not in the repository'),
      'cites docs/missing.md, which is not in the repository',
      'cites docs/architecture.md#no-such-section, but docs/architecture.md has no heading with that anchor',
      'cites docs/decisions.md "Who decided", but no heading or paragraph title there matches',
      'cites docs/gone.md, which is not in the repository',
      'cites docs/architecture.md#nope, but docs/architecture.md has no heading with that anchor',
      'links to #nowhere, but docs/guide.md has no heading with that anchor',
    ]);
  });

  it('makes anchors the way GitHub does', () => {
    expect(githubSlug('Two ways to run')).toBe('two-ways-to-run');
    expect(githubSlug('Start-up and shutdown')).toBe('start-up-and-shutdown');
    expect(githubSlug('`parentId` is the causing event.')).toBe('parentid-is-the-causing-event');
    expect(githubSlug('Exactly once = idempotent projection')).toBe('exactly-once--idempotent-projection');
  });
});
