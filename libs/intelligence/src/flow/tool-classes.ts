/**
 * What a tool does, judged from its name's leading verb (the data carries no other description of
 * a tool): generic classes, never a list of one benchmark's tool names
 * (docs/decisions.md#failure-analysers-judge-tools-by-generic-verb-classes). Pure.
 */

/** A tool's class: `create` makes, pays or sends something; `update` changes it; `compensate` undoes it; `shell` runs commands. */
export type ToolClass = 'create' | 'update' | 'compensate' | 'shell' | 'other';

export const CREATE_VERBS = new Set([
  'book',
  'reserve',
  'create',
  'add',
  'pay',
  'send',
  'transfer',
  'purchase',
  'order',
  'buy',
  'post',
  'schedule',
  'insert',
  'issue',
  'charge',
  'invite',
  'share',
  'register',
  'subscribe',
]);
export const UPDATE_VERBS = new Set([
  'update',
  'modify',
  'change',
  'edit',
  'set',
  'rename',
  'move',
  'upgrade',
  'replace',
]);
export const COMPENSATE_VERBS = new Set([
  'cancel',
  'delete',
  'remove',
  'refund',
  'revoke',
  'undo',
  'void',
  'rollback',
  'reverse',
  'unsubscribe',
  'drop',
]);
const SHELL =
  /^(bash|sh|zsh|shell|terminal|exec|execute|run_command|run_shell|run_bash|execute_command|command|cmd|powershell)$/;

/** The words of a tool name: `book_reservation` → [book, reservation]; `bookFlight` → [book, flight]. */
export function nameWords(tool: string): string[] {
  return tool
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * The class of `tool` from its first word (`cancel_reservation` → compensate). A shell tool is
 * named for the shell itself (`bash`, `run_command` …). A `transfer_to_…` handing the user over
 * (`to` right after the verb) moves no object and is `other`.
 */
export function toolClass(tool: string): ToolClass {
  const t = tool.toLowerCase();
  if (SHELL.test(t)) return 'shell';
  const [verb, next] = nameWords(tool);
  if (!verb) return 'other';
  if (COMPENSATE_VERBS.has(verb)) return 'compensate';
  if (CREATE_VERBS.has(verb)) return next === 'to' ? 'other' : 'create';
  if (UPDATE_VERBS.has(verb)) return 'update';
  return 'other';
}

/** True when calls of `tool` change the world (create, update or compensate). */
export function hasSideEffect(tool: string): boolean {
  const c = toolClass(tool);
  return c === 'create' || c === 'update' || c === 'compensate';
}
