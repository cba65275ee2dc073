import { v7 as uuidv7, validate, version } from 'uuid';

/** A new UUIDv7 (RFC 9562 §5.7): 48-bit Unix ms timestamp + random, time ordered. */
export function newId(): string {
  return uuidv7();
}

/** True when `s` is a UUIDv7. */
export function isUuidV7(s: string): boolean {
  return validate(s) && version(s) === 7;
}
