/**
 * Checks that source files cite only documents that are in the repository (docs/conventions.md#docs-and-history).
 *
 * A file fails the check when it cites:
 * - `DESIGN.md` or `STYLE.md` (the first design brief and coding notes, which were never in the
 *   repository; their content is in docs/architecture.md and docs/conventions.md);
 * - a `docs/….md` path (from the repository root, or relative with `./` / `../`) that does not
 *   exist, or a Markdown link to a `.md` file that does not exist (relative to the linking file);
 * - an `#anchor` after such a path (or alone, in a Markdown link within one file) that is not the
 *   GitHub anchor of one of the target's headings, nor an `<a id="…">` in it;
 * - a quoted title after such a path (`docs/decisions.md "Sign-in throttling"`) that is not part of
 *   one of the target's headings or bold paragraph titles (`**Title.**`). A title may be cut short
 *   with a trailing `…`.
 *
 * Run: `tsx scripts/check-doc-refs.ts [root]` (part of `npm run lint`); exits 1 and prints
 * `file:line: message` for each problem. Reads text files only, skipping `node_modules`, build
 * output, generated code and virtual environments.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';

/** Folders and files the check reads, relative to the repository root. */
export const CHECKED_PATHS = [
  'services',
  'libs',
  'clients',
  'scripts',
  'test',
  'bench',
  'prisma',
  'infra',
  'examples',
  'docs',
  'README.md',
  'docker-compose.yml',
  'jest.config.ts',
];

/** This checker and its test hold bad citations on purpose (as examples and fixtures). */
const SKIPPED_FILES = new Set(['scripts/check-doc-refs.ts', 'scripts/check-doc-refs.test.ts']);

const SKIPPED_DIRS = new Set([
  'node_modules',
  'dist',
  'generated',
  '.venv',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  'build',
  'coverage',
  '.turbo',
  'test-results',
]);

const TEXT_EXTENSIONS = new Set([
  '.ts',
  '.tsx',
  '.js',
  '.mjs',
  '.cjs',
  '.py',
  '.md',
  '.yml',
  '.yaml',
  '.sh',
  '.prisma',
  '.sql',
  '.toml',
  '.cfg',
  '.conf',
  '.html',
  '.css',
  '.xml',
  '.txt',
]);

/** One bad citation: where it is (1-based line) and what is wrong. */
export interface DocRefProblem {
  file: string;
  line: number;
  message: string;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces → `-`. */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Lower case, without Markdown code marks, trailing dots or ellipses, with single spaces. */
function normalizeTitle(s: string): string {
  return s
    .replace(/\\?`/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(…|\.\.\.|\.)+$/u, '')
    .trim()
    .toLowerCase();
}

interface DocIndex {
  anchors: Set<string>;
  titles: string[];
}

function indexDoc(text: string): DocIndex {
  const anchors = new Set<string>();
  const titles: string[] = [];
  const counts = new Map<string, number>();
  let fence = false;
  for (const raw of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) fence = !fence;
    if (fence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (h) {
      const base = githubSlug(h[1]!);
      const n = counts.get(base) ?? 0;
      counts.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
      titles.push(normalizeTitle(h[1]!));
    }
    for (const m of raw.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  // Bold paragraph titles: `**Title.**` at the start of a paragraph (they may wrap over lines).
  for (const m of text.matchAll(/(?:^|\n\n)\*\*([\s\S]+?)\*\*/g)) titles.push(normalizeTitle(m[1]!));
  return { anchors, titles };
}

/** Removes comment prefixes from a quoted title that wraps over comment lines. */
function unwrapComment(s: string): string {
  return s.replace(/\n\s*(?:\*|\/\/|#)?\s*/g, ' ');
}

/** The text with code blocks and code spans blanked out (same length and lines), for Markdown links. */
function maskCode(text: string): string {
  const blank = (m: string) => m.replace(/[^\n]/g, ' ');
  return text.replace(/^(```|~~~)[\s\S]*?^\1/gm, blank).replace(/`[^`\n]*`/g, blank);
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Finds the bad citations in one file's text. `file` is the file's path relative to `root`, with
 * `/` separators; targets are resolved inside `root`.
 */
export function checkText(root: string, file: string, text: string, cache = new Map<string, DocIndex>()) {
  const problems: DocRefProblem[] = [];
  const report = (index: number, message: string) =>
    problems.push({ file, line: lineOf(text, index), message });
  const docIndex = (target: string): DocIndex => {
    let d = cache.get(target);
    if (!d) {
      d = indexDoc(readFileSync(path.join(root, target), 'utf8'));
      cache.set(target, d);
    }
    return d;
  };

  for (const m of text.matchAll(/(?<![\w.-])(DESIGN|STYLE)\.md\b/g))
    if (!existsSync(path.join(root, `${m[1]}.md`)))
      report(
        m.index,
        `cites ${m[1]}.md, which is not in the repository: cite docs/architecture.md or docs/conventions.md`,
      );

  const dir = path.posix.dirname(file);
  const refs: { index: number; target: string; anchor?: string; rest: string }[] = [];
  const seen = new Set<number>();
  // Paths that name a docs/ folder: `docs/x.md`, `../../docs/x.md`, `clients/python/docs/x.md`.
  for (const m of text.matchAll(/(?<![\w/.-])((?:\.{1,2}\/)*(?:[\w.-]+\/)*docs\/[\w./-]*?\.md)(#[\w-]+)?/g)) {
    const p = m[1]!;
    const target = p.startsWith('.') ? path.posix.normalize(path.posix.join(dir, p)) : p;
    seen.add(m.index);
    refs.push({ index: m.index, target, anchor: m[2]?.slice(1), rest: text.slice(m.index + m[0].length) });
  }
  // Markdown links to .md files, relative to the linking file: `[x](decisions.md#a)`.
  const links = file.endsWith('.md') ? maskCode(text) : '';
  if (links)
    for (const m of links.matchAll(/\]\(((?!https?:|mailto:|#)[^)\s#]+\.md)(#[^)\s]+)?\)/g)) {
      const start = m.index + 2;
      if (seen.has(start)) continue;
      const target = path.posix.normalize(path.posix.join(dir, m[1]!));
      refs.push({ index: m.index, target, anchor: m[2]?.slice(1), rest: text.slice(m.index + m[0].length) });
    }

  // Links to a heading of the same Markdown file: `[x](#anchor)`.
  if (links)
    for (const m of links.matchAll(/\]\(#([^)\s]+)\)/g))
      if (!docIndex(file).anchors.has(m[1]!))
        report(m.index, `links to #${m[1]}, but ${file} has no heading with that anchor`);

  for (const r of refs) {
    if (r.target.startsWith('..') || !existsSync(path.join(root, r.target))) {
      report(r.index, `cites ${r.target}, which is not in the repository`);
      continue;
    }
    if (!statSync(path.join(root, r.target)).isFile()) continue;
    const doc = docIndex(r.target);
    if (r.anchor !== undefined && !doc.anchors.has(r.anchor))
      report(r.index, `cites ${r.target}#${r.anchor}, but ${r.target} has no heading with that anchor`);
    // Quoted titles right after the path: `docs/decisions.md "A", "B"` or `docs/x.md, "A"`.
    const quoted =
      /^[,:]?[ \t]*(?:\n\s*(?:\*|\/\/|#)?\s*)?((?:"[^"\n]{1,200}(?:\n[^"\n]{0,200}){0,2}"(?:,\s*)?)+)/.exec(
        r.rest,
      );
    if (!quoted) continue;
    for (const q of quoted[1]!.matchAll(/"([^"]+)"/g)) {
      const title = normalizeTitle(unwrapComment(q[1]!));
      if (title.length === 0) continue;
      if (!doc.titles.some((t) => t.includes(title)))
        report(
          r.index,
          `cites ${r.target} "${q[1]!.replace(/\s+/g, ' ')}", but no heading or paragraph title there matches`,
        );
    }
  }
  return problems;
}

function* walk(root: string, rel: string): Generator<string> {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return;
  const st = statSync(abs);
  if (st.isFile()) {
    const ext = path.extname(rel);
    if (SKIPPED_FILES.has(rel)) return;
    if (TEXT_EXTENSIONS.has(ext) || path.basename(rel) === 'Dockerfile') yield rel;
    return;
  }
  for (const e of readdirSync(abs, { withFileTypes: true })) {
    if (e.isDirectory() && (SKIPPED_DIRS.has(e.name) || e.name.startsWith('.'))) continue;
    yield* walk(root, rel ? `${rel}/${e.name}` : e.name);
  }
}

/** Checks every text file under `paths` (relative to `root`); returns the problems found. */
export function checkDocRefs(root: string, paths: readonly string[] = CHECKED_PATHS): DocRefProblem[] {
  const cache = new Map<string, DocIndex>();
  const problems: DocRefProblem[] = [];
  for (const p of paths)
    for (const file of walk(root, p))
      problems.push(...checkText(root, file, readFileSync(path.join(root, file), 'utf8'), cache));
  return problems;
}

if (require.main === module) {
  const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
  const problems = checkDocRefs(root);
  for (const p of problems) console.error(`${p.file}:${p.line}: ${p.message}`);
  if (problems.length > 0) {
    console.error(
      `check-doc-refs: ${problems.length} citation(s) of documents that are not in the repository`,
    );
    process.exit(1);
  }
  console.log('check-doc-refs: every cited document is in the repository');
}
