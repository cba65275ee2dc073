import { Router, type RequestHandler } from 'express';
import { ApiKeyCreateRequest, Uuid } from '@agent-warden/contracts';
import {
  apiKeyView,
  createApiKey,
  findApiKey,
  listApiKeys,
  recordAudit,
  revokeApiKey,
  type PrismaClient,
} from '@agent-warden/db';
import {
  actorOf,
  generateApiKey,
  hashApiKey,
  notFound,
  parseOr400,
  principalOf,
  type KeyAuthenticator,
} from '@agent-warden/http';

/**
 * API keys of the project (`admin`): `GET /v1/api-keys` lists them (never a secret),
 * `POST /v1/api-keys` creates one and answers its secret this once (201), `DELETE /v1/api-keys/{id}`
 * revokes it (204, idempotent). A revoked key stops working at once on this process (its cache
 * entry is dropped) and within the key cache's 30 s on other processes (docs/decisions.md).
 */
export function apiKeysRouter(deps: {
  admin: RequestHandler;
  db: PrismaClient;
  keys: KeyAuthenticator;
}): Router {
  const { db, admin, keys } = deps;
  const r = Router();

  r.get('/v1/api-keys', admin, async (req, res) => {
    const rows = await listApiKeys(db, principalOf(req).projectId);
    res.json({ items: rows.map(apiKeyView) });
  });

  r.post('/v1/api-keys', admin, async (req, res) => {
    const p = principalOf(req);
    const body = parseOr400(ApiKeyCreateRequest, req.body);
    const { secret, prefix } = generateApiKey();
    const { id } = await createApiKey(db, p.projectId, {
      name: body.name,
      prefix,
      hash: hashApiKey(secret),
      scopes: body.scopes,
    });
    const view = apiKeyView((await findApiKey(db, p.projectId, id))!);
    await recordAudit(db, p.projectId, actorOf(p), [
      { action: 'api_key.created', entityType: 'api_key', entityId: id, after: view },
    ]);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ ...view, secret });
  });

  r.delete('/v1/api-keys/:keyId', admin, async (req, res) => {
    const p = principalOf(req);
    const id = parseOr400(Uuid, req.params.keyId, 'keyId');
    const before = await findApiKey(db, p.projectId, id);
    if (!before) throw notFound('API key');
    const after = await revokeApiKey(db, p.projectId, id);
    keys.invalidate(id);
    if (!before.revokedAt && after)
      await recordAudit(db, p.projectId, actorOf(p), [
        {
          action: 'api_key.revoked',
          entityType: 'api_key',
          entityId: id,
          before: apiKeyView(before),
          after: apiKeyView(after),
        },
      ]);
    res.status(204).end();
  });
  return r;
}
