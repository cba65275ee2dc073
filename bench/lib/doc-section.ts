import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const FILE_HEADER = `# Benchmarks

Measured figures. Each section is written by the script it names and replaced when that script runs
again; text outside the generated sections is written by hand.
`;

/**
 * Writes `section` between the markers `<!-- bench:<name>:start -->` and `…:end -->` of `file`:
 * replaces the previous section, or appends one; creates the file with its header when missing.
 * Text outside the markers is kept.
 */
export function writeDocSection(file: string, name: string, section: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n${section}\n${end}`;
  if (!existsSync(file)) {
    writeFileSync(file, `${FILE_HEADER}\n${block}\n`);
    return;
  }
  const text = readFileSync(file, 'utf8');
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  writeFileSync(
    file,
    a >= 0 && b > a
      ? text.slice(0, a) + block + text.slice(b + end.length)
      : `${text.trimEnd()}\n\n${block}\n`,
  );
}
