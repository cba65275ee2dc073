/**
 * Installs a policy pack for an efficacy run so that nothing else decides: the pack's policies are
 * imported (names that exist are updated), the other prompt-injection level is disabled, and a
 * project with any other enabled policy, or a default decision other than `allow`, is refused.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where the packs live. */
export const PACKS_DIR = path.resolve(__dirname, '../../examples/policies');

/** `--pack` names and their files. */
export const PACKS: Record<string, string> = {
  balanced: path.join(PACKS_DIR, 'prompt-injection.json'),
  strict: path.join(PACKS_DIR, 'prompt-injection-strict.json'),
};

/** Policies of the prompt-injection packs start with this (the other level is disabled before a run). */
export const PACK_NAME_PREFIX = 'Prompt injection';

/** A policy set file read for a run. */
export interface Pack {
  file: string;
  /** First 12 hex digits of the file's SHA-256: part of the replay namespace. */
  digest: string;
  set: { policies: Array<{ name: string }> } & Record<string, unknown>;
}

/** Reads `--pack` (a level name or a file); throws when it is neither. */
export function readPack(pack: string): Pack {
  const file = PACKS[pack] ?? pack;
  if (!fs.existsSync(file))
    throw new Error(`--pack: no level or file named ${pack} (levels: ${Object.keys(PACKS).join(', ')})`);
  const bytes = fs.readFileSync(file);
  return {
    file,
    digest: createHash('sha256').update(bytes).digest('hex').slice(0, 12),
    set: JSON.parse(bytes.toString('utf8')) as Pack['set'],
  };
}

type Api = (method: string, p: string, body?: unknown) => Promise<unknown>;

/** A JSON call with the key; throws with the answer on a status that is not 2xx. */
export function apiOf(url: string, apiKey: string): Api {
  return async (method, p, body) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
}

/**
 * Imports `pack` into the key's project (`onConflict: update`), disables the enabled policies of
 * the other prompt-injection level, then checks that the enabled policies are exactly the pack's
 * and the default decision is `allow`; throws naming the others otherwise (use a project of its
 * own). Waits 1.5 s for the gateways, which check for changes every 500 ms (docs/guardrails.md
 * "Propagation to the gateways").
 */
export async function installPack(api: Api, pack: Pack): Promise<void> {
  const mine = new Set(pack.set.policies.map((p) => p.name.toLowerCase()));
  await api('POST', '/v1/policies/import', { ...pack.set, onConflict: 'update' });
  const enabled = (
    (await api('GET', '/v1/policies?enabled=true&limit=500')) as {
      items: Array<{ id: string; name: string }>;
    }
  ).items;
  for (const p of enabled)
    if (!mine.has(p.name.toLowerCase()) && p.name.startsWith(PACK_NAME_PREFIX))
      await api('POST', `/v1/policies/${p.id}/disable`);
  const others = enabled.filter(
    (p) => !mine.has(p.name.toLowerCase()) && !p.name.startsWith(PACK_NAME_PREFIX),
  );
  if (others.length > 0)
    throw new Error(
      `the project has other enabled policies (${others.map((p) => p.name).join(', ')}): they would count in the figures; run against a project of its own, or without --url to start a fresh standalone service`,
    );
  for (const p of pack.set.policies)
    if (!enabled.some((e) => e.name.toLowerCase() === p.name.toLowerCase()))
      throw new Error(`policy "${p.name}" of the pack is not enabled in the project`);
  const settings = (await api('GET', '/v1/projects/current/settings')) as { defaultDecision: string };
  if (settings.defaultDecision !== 'allow')
    throw new Error(
      `the project's default decision is ${settings.defaultDecision}, not allow: the figures would count it`,
    );
  await new Promise((r) => setTimeout(r, 1500));
}
