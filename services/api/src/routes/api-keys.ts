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
 * API keys of a project (`admin` there), at two addresses: `/v1/api-keys` (the caller's current
 * project) and `/v1/projects/{projectId}/api-keys` (a named project; `current` works too).
 * `GET` lists them (never a secret), `POST` creates one and answers its secret this once (201),
 * `DELETE …/{keyId}` revokes it (204, idempotent; 404 for a key of another project). A revoked key stops working at once on this process (its cache
 * entry is dropped) and within the key cache's 30 s on other processes (docs/decisions.md).
 */
export function apiKeysRouter(deps: {
  admin: RequestHandler;
  projectAdmin: RequestHandler;
  db: PrismaClient;
  keys: KeyAuthenticator;
}): Router {
  const { db, admin, projectAdmin, keys } = deps;
  const r = Router();

  const list: RequestHandler = async (req, res) => {
    const rows = await listApiKeys(db, principalOf(req).projectId);
    res.json({ items: rows.map(apiKeyView) });
  };

  const create: RequestHandler = async (req, res) => {
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
  };

  const revoke: RequestHandler = async (req, res) => {
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
  };

  r.get('/v1/api-keys', admin, list);
  r.post('/v1/api-keys', admin, create);
  r.delete('/v1/api-keys/:keyId', admin, revoke);
  r.get('/v1/projects/:projectId/api-keys', projectAdmin, list);
  r.post('/v1/projects/:projectId/api-keys', projectAdmin, create);
  r.delete('/v1/projects/:projectId/api-keys/:keyId', projectAdmin, revoke);
  return r;
}
