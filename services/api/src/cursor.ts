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
