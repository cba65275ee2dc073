import type { z } from 'zod';
import { issuesToErrors } from '@agent-warden/contracts';
import { validationError } from './errors';

/**
 * Parses `value` with a zod schema; throws a 400 `validation_failed` AppError whose `errors`
 * name each offending path (RFC 9457 extension member, docs/architecture.md#errors).
 */
export function parseOr400<S extends z.ZodType>(schema: S, value: unknown, what = 'body'): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const errors = issuesToErrors(r.error.issues);
  throw validationError(
    `invalid ${what}: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    errors,
  );
}
