import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook signing as the Standard Webhooks specification defines it
 * (https://www.standardwebhooks.com/, spec "Signature scheme";
 * docs/decisions.md "Webhooks follow Standard Webhooks"): the signed content is `<webhook-id>.<webhook-timestamp>.<body>`, the key is
 * the secret's bytes (the base64 after `whsec_`), the signature HMAC-SHA256 in base64, sent as
 * `webhook-signature: v1,<signature>`. Receivers verify with any Standard Webhooks library
 * (`standardwebhooks` on npm, Svix's) or these few lines.
 */

/** Prefix of a signing secret, as the specification names it. */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the spec allows 24 to 64). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The key bytes of a `whsec_…` secret. Throws `Error` when it holds no base64 key. */
export function secretKey(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(b64, 'base64');
  if (key.length === 0) throw new Error('webhook secret holds no key');
  return key;
}

/** The `webhook-signature` value (`v1,<base64 HMAC-SHA256>`) of a body sent with that id and timestamp (Unix seconds). */
export function signWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${id}.${timestampSec}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The three headers of a signed delivery. `webhook-timestamp` is the time of this attempt (a
 * receiver rejects old ones, the spec suggests 5 minutes), so a retry is signed again; the id and
 * body stay the same, which is how a receiver recognises it.
 */
export function webhookHeaders(
  secret: string,
  id: string,
  body: string,
  now: Date = new Date(),
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  const ts = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': signWebhook(secret, id, ts, body),
  };
}
