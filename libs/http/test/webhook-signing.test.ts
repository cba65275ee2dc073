import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, secretKey, signWebhook, webhookHeaders } from '../src/webhook-signing';

/**
 * Webhook signatures as Standard Webhooks defines them (https://www.standardwebhooks.com/): checked
 * against the specification's published example, against the `standardwebhooks` reference library
 * (an implementation we did not write), and by the spec's formula spelled out with node:crypto.
 */
describe('webhook signing (Standard Webhooks)', () => {
  it("reproduces the specification's example signature", () => {
    // The example of the spec's "Signature scheme" section (and Svix's documentation).
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const sig = signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('is verified by the standardwebhooks reference library', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ type: 'approval.requested', data: { id: 'a' } });
    const headers = webhookHeaders(secret, '0199a1b2-0000-7000-8000-000000000001', body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fails verification for another secret, another body or another id', () => {
    const secret = generateWebhookSecret();
    const body = '{"a":1}';
    const headers = webhookHeaders(secret, 'id-1', body);
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify('{"a":2}', headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'id-2' })).toThrow();
  });

  it('signs "<id>.<timestamp>.<body>" with the base64-decoded key, timestamp in Unix seconds', () => {
    const secret = generateWebhookSecret();
    const now = new Date('2026-11-24T12:00:00.999Z');
    const h = webhookHeaders(secret, 'msg_1', 'hello', now);
    expect(h['webhook-timestamp']).toBe('1795521600');
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update('msg_1.1795521600.hello').digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${mac}`);
  });

  it('makes secrets of 32 random bytes with the whsec_ prefix', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(a);
  });

  it('refuses a secret without a key', () => {
    expect(() => secretKey('whsec_')).toThrow('no key');
  });
});
