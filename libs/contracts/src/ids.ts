import { parse, v5 as uuidv5, v7 as uuidv7, validate, version } from 'uuid';

/** A new UUIDv7 (RFC 9562 §5.7): 48-bit Unix ms timestamp + random, time ordered. */
export function newId(): string {
  return uuidv7();
}

/** True when `s` is a UUIDv7. */
export function isUuidV7(s: string): boolean {
  return validate(s) && version(s) === 7;
}

/**
 * Time field of the ids made by {@link nameBasedUuidV7}: 2024-01-01T00:00:00Z (+ position), ms.
 * Such ids are not made at a moment in time: the same name must give the same id every time.
 */
export const NAME_BASED_ID_EPOCH_MS = Date.UTC(2024, 0, 1);

/** UUIDv5 namespace of {@link nameBasedUuidV7} (RFC 9562 Appendix C's URL namespace). */
const NAME_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/**
 * A name-based id in the UUIDv7 layout (RFC 9562 §5.7; the contract's client ids must be UUIDv7):
 * the UUIDv5 of `name` (RFC 9562 §5.5, SHA-1) supplies the 74 non-time bits, the 48-bit time field
 * is {@link NAME_BASED_ID_EPOCH_MS} + `position` (ids of one sequence sort by position). Equal
 * inputs give equal ids; different names collide with probability ~2⁻⁷⁴ per pair. Used for replays'
 * ids and idempotency keys (docs/decisions.md "Replays use deterministic ids", "Evaluate honours
 * an Idempotency-Key").
 * @param position 0 … 2⁴⁰
 */
export function nameBasedUuidV7(name: string, position = 0): string {
  return uuidv7({ msecs: NAME_BASED_ID_EPOCH_MS + position, random: parse(uuidv5(name, NAME_NAMESPACE)) });
}
