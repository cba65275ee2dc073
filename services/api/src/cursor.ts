import { validationError } from '@agent-warden/http';

/** Opaque keyset cursor over `(time desc, id desc)`: base64url of `<ISO time>|<id>`. */
export function encodeCursor(time: Date, id: string): string {
  return Buffer.from(`${time.toISOString()}|${id}`, 'utf8').toString('base64url');
}

/** Decodes a cursor; throws a 400 naming `cursor` when it is malformed. */
export function decodeCursor(cursor: string): { time: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const time = new Date(iso ?? '');
  if (!id || Number.isNaN(time.getTime()))
    throw validationError('malformed cursor', [{ path: 'cursor', message: 'not a cursor from this API' }]);
  return { time, id };
}

/**
 * One keyset page from `limit + 1` rows fetched newest first: the first `limit` rows mapped by
 * `view`, and the cursor of the last one when more rows follow (null at the end).
 */
export function toPage<R extends { id: string }, V>(
  rows: R[],
  limit: number,
  view: (r: R) => V,
  timeOf: (r: R) => Date,
): { items: V[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(view),
    nextCursor: rows.length > limit && last ? encodeCursor(timeOf(last), last.id) : null,
  };
}
