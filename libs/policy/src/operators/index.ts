import { contains } from './contains';
import { eq } from './eq';
import { exists } from './exists';
import { glob } from './glob';
import { gte } from './gte';
import { inList } from './in';
import { lte } from './lte';
import type { Operator } from './operator';
import { regex } from './regex';
import { startsWith } from './starts-with';

/**
 * The operator registry: every operator by its name in a policy, in the order error messages and
 * the API's listing show them (docs/decisions.md "Operator registry"). `satisfies` makes an entry
 * that is not a complete `Operator` (check, compile, text, cost, …) a compile error, and the
 * names are derived from here, so there is no second list to forget. Adding an operator = its
 * module, its test, one import and one entry here, and the docs.
 */
export const DECLARED = {
  eq,
  in: inList,
  glob,
  regex,
  gte,
  lte,
  exists,
  contains,
  startsWith,
} as const satisfies Record<string, Operator>;
