import type { Provenance } from '@agent-warden/contracts';
import type { Scope } from './context';
import type { TrustedOptions, UntrustedOrigin } from './provenance';
import type { Runtime } from './runtime';
import { toJsonObject } from './serialize';

/**
 * Records `value` as trusted text (docs/provenance.md "Sources", kind `user`): argument values
 * found in it are not tainted. In `scope`'s run (its session outside a run, or with
 * `{ session: true }`). Never throws.
 */
export function markTrusted(rt: Runtime, scope: Scope, value: unknown, options?: TrustedOptions): void {
  rt.provenance.trusted(scope, value, options);
}

/**
 * Records `value` as untrusted text (kind `tool`) from `origin` (`toolName` default `unknown`,
 * `toolCallId` a UUIDv7) and checks it for instructions aimed at the model. Never throws.
 */
export function markUntrusted(rt: Runtime, scope: Scope, value: unknown, origin: UntrustedOrigin = {}): void {
  rt.provenance.untrusted(scope, value, origin);
}

/**
 * The provenance a guarded call with `args` in `scope` would send now (the arguments made
 * JSON-safe first, as the call does), or `undefined` when provenance is off or the client is
 * disabled. Never throws.
 */
export function provenanceOf(
  rt: Runtime,
  scope: Scope,
  args: Record<string, unknown>,
): Provenance | undefined {
  return rt.provenance.provenanceOf(scope, toJsonObject(args));
}
