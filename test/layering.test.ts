import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * The layering check of `npm run lint` (.dependency-cruiser.cjs): each rule fires on a made-up tree
 * that breaks it, and a tree that keeps the layers passes.
 */
const repo = resolve(__dirname, '..');
const depcruise = join(repo, 'node_modules', '.bin', 'depcruise');
const config = join(repo, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Writes `files` (path → source) under a fresh directory and cruises it with the repo's rules. */
function cruise(files: Record<string, string>): Violation[] {
  const root = mkdtempSync(join(tmpdir(), 'warden-layers-'));
  try {
    writeFileSync(join(root, 'tsconfig.json'), '{"compilerOptions":{"module":"commonjs"}}');
    for (const top of ['libs', 'services', 'clients']) mkdirSync(join(root, top));
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    const out = spawnSync(
      depcruise,
      ['libs', 'services', 'clients', '--config', config, '--output-type', 'json'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    if (!out.stdout) throw new Error(`depcruise printed nothing: ${out.stderr}`);
    const result = JSON.parse(out.stdout) as { summary: { violations: Violation[] } };
    return result.summary.violations;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const lib = (name: string, imports: string[] = []) => ({
  [`libs/${name}/src/index.ts`]:
    imports.map((i) => `export * from '${i}';`).join('\n') + `\nexport const ${name} = 1;\n`,
});

describe('layering rules (npm run lint)', () => {
  it('accepts a tree that keeps the layers', () => {
    const v = cruise({
      ...lib('contracts'),
      ...lib('observability', ['../../contracts/src/index']),
      ...lib('db', ['../../contracts/src/index', '../../observability/src/index']),
      ...lib('intelligence', ['../../contracts/src/index']),
      'services/api/src/index.ts': "export * from '../../../libs/db/src/index';\n",
      'services/standalone/src/index.ts': "export * from '../../api/src/index';\n",
    });
    expect(v).toEqual([]);
  });

  it('rejects storage importing the analysers above it', () => {
    const v = cruise({ ...lib('intelligence'), ...lib('db', ['../../intelligence/src/index']) });
    expect(v.map((x) => [x.rule.name, x.from, x.to])).toEqual([
      ['domain-libs-are-siblings', 'libs/db/src/index.ts', 'libs/intelligence/src/index.ts'],
    ]);
  });

  it('rejects contracts importing anything of the workspace', () => {
    const v = cruise({ ...lib('observability'), ...lib('contracts', ['../../observability/src/index']) });
    expect(v.map((x) => x.rule.name)).toEqual(['contracts-at-the-bottom']);
  });

  it('rejects a foundation lib importing a domain lib', () => {
    const v = cruise({ ...lib('db'), ...lib('config', ['../../db/src/index']) });
    expect(v.map((x) => x.rule.name)).toEqual(['foundation-imports-contracts-only']);
  });

  it('rejects a lib importing a service', () => {
    const v = cruise({
      'services/api/src/index.ts': 'export const api = 1;\n',
      ...lib('http', ['../../../services/api/src/index']),
    });
    expect(v.map((x) => x.rule.name)).toEqual(['libs-never-import-services']);
  });

  it('rejects a service importing another, except the standalone composition root', () => {
    const v = cruise({
      'services/projector/src/index.ts': 'export const projector = 1;\n',
      'services/api/src/index.ts': "export * from '../../projector/src/index';\n",
      'services/standalone/src/index.ts': "export * from '../../projector/src/index';\n",
    });
    expect(v.map((x) => [x.rule.name, x.from])).toEqual([
      ['no-service-imports-another', 'services/api/src/index.ts'],
    ]);
  });

  it('rejects the client importing anything but contracts', () => {
    const v = cruise({
      ...lib('contracts'),
      ...lib('http'),
      'clients/typescript/src/index.ts':
        "export * from '../../../libs/contracts/src/index';\nexport * from '../../../libs/http/src/index';\n",
    });
    expect(v.map((x) => [x.rule.name, x.to])).toEqual([
      ['client-imports-contracts-only', 'libs/http/src/index.ts'],
    ]);
  });

  it('rejects the MCP guard importing anything but the public front of the client', () => {
    const v = cruise({
      ...lib('contracts'),
      'clients/typescript/src/index.ts': "export * from './guard';\n",
      'clients/typescript/src/guard.ts': 'export const guard = 1;\n',
      'clients/mcp-guard/src/ok.ts': "export * from '../../typescript/src/index';\n",
      'clients/mcp-guard/src/deep.ts': "export * from '../../typescript/src/guard';\n",
      'clients/mcp-guard/src/lib.ts': "export * from '../../../libs/contracts/src/index';\n",
    });
    expect(v.map((x) => [x.rule.name, x.from, x.to]).sort()).toEqual([
      [
        'mcp-guard-imports-the-client-only',
        'clients/mcp-guard/src/deep.ts',
        'clients/typescript/src/guard.ts',
      ],
      ['mcp-guard-imports-the-client-only', 'clients/mcp-guard/src/lib.ts', 'libs/contracts/src/index.ts'],
    ]);
  });

  it('keeps the migration tooling above the embedded PostgreSQL and data access beside both', () => {
    const v = cruise({
      ...lib('embedded-postgres'),
      ...lib('migrations', ['../../embedded-postgres/src/index']),
      ...lib('db', ['../../migrations/src/index']),
      ...lib('policy'),
      'libs/migrations/src/cli.ts': "export * from '../../policy/src/index';\n",
    });
    expect(v.map((x) => [x.rule.name, x.from]).sort()).toEqual([
      ['domain-libs-are-siblings', 'libs/db/src/index.ts'],
      ['migrations-above-embedded-postgres', 'libs/migrations/src/cli.ts'],
    ]);
  });

  it('rejects a cycle', () => {
    const v = cruise({
      'libs/policy/src/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'libs/policy/src/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
    });
    expect(new Set(v.map((x) => x.rule.name))).toEqual(new Set(['no-circular']));
  });
});

describe('every statement lives in libs/db (npm run lint, eslint)', () => {
  const eslint = join(repo, 'node_modules', '.bin', 'eslint');
  /** ESLint's messages for `source` as if it were the file `filePath` of the repository. */
  const lint = (filePath: string, source: string): string[] => {
    const out = spawnSync(eslint, ['--format', 'json', '--stdin', '--stdin-filename', filePath], {
      cwd: repo,
      input: source,
      encoding: 'utf8',
    });
    const [file] = JSON.parse(out.stdout) as { messages: { ruleId: string | null; line: number }[] }[];
    return file!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => `line ${m.line}`);
  };
  const source = [
    "import type { PrismaClient } from '@agent-warden/db';",
    'export async function f(db: PrismaClient): Promise<void> {',
    '  await db.session.findMany({ where: {} });',
    '  await db.$queryRaw`SELECT 1`;',
    '  await db.$transaction([]);',
    '}',
    '',
  ].join('\n');

  it('rejects a Prisma model call, raw SQL and a transaction in a service', () => {
    expect(lint('services/api/src/probe.ts', source)).toEqual(['line 3', 'line 4', 'line 5']);
  });

  it('allows them in libs/db', () => {
    expect(lint('libs/db/src/probe.ts', source)).toEqual([]);
  });
});
