import fs from 'node:fs';
import path from 'node:path';
import type { Operator } from './operator';

/** Modules of this directory that are not operators: the registry itself and the shared types. */
const NOT_OPERATORS = new Set(['index', 'operator']);

/** `starts-with` → `startsWith`: an operator's name is its module's file name in camelCase. */
export function operatorNameOf(fileStem: string): string {
  return fileStem.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** True for a complete {@link Operator}: the members the engine calls and the texts the API lists. */
function isOperator(v: unknown): v is Operator {
  const o = v as Partial<Operator> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.check === 'function' &&
    typeof o.compile === 'function' &&
    typeof o.text === 'function' &&
    typeof o.cost === 'number' &&
    typeof o.summary === 'string' &&
    typeof o.operandText === 'string'
  );
}

/**
 * The operator registry, collected from this directory when the module loads (docs/decisions.md
 * "Operator registry"): every module here that exports an {@link Operator} is one, named after its
 * file (`starts-with.ts` → `startsWith`, `in.ts` → `in`), in name order. A module that exports no
 * operator is a helper (`compare.ts`); one that exports two is a mistake and fails the load. Each
 * operator module types its export as `Operator`, so a missing member is a compile error in that
 * module; `test/registry.test.ts` checks that every operator is documented in docs/guardrails.md.
 * Adding an operator = its module, its test and the docs; nothing else lists operators.
 *
 * Loads `.ts` modules under tsx / Jest and `.js` ones once compiled (the extension this file has).
 * @throws Error when a module exports more than one operator.
 */
function collect(): Record<string, Operator> {
  const ext = path.extname(__filename);
  const found: [string, Operator][] = [];
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (path.extname(file) !== ext || file.endsWith(`.d${ext}`)) continue;
    const stem = path.basename(file, ext);
    if (NOT_OPERATORS.has(stem)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the registry is the directory
    const exported = Object.values(require(path.join(__dirname, file)) as Record<string, unknown>).filter(
      isOperator,
    );
    if (exported.length > 1)
      throw new Error(`src/operators/${file} exports ${exported.length} operators; one per module`);
    if (exported.length === 1) found.push([operatorNameOf(stem), exported[0]!]);
  }
  return Object.fromEntries(found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every operator by its name in a policy, in name order (see {@link collect}). */
export const DECLARED: Readonly<Record<string, Operator>> = Object.freeze(collect());
