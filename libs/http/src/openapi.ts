import { Router } from 'express';
import { buildOpenApiDocument } from '@agent-warden/contracts';

/** `GET /v1/openapi.json`: the OpenAPI 3.1 document generated from the contracts, built once. */
export function openApiRouter(): Router {
  const doc = buildOpenApiDocument();
  return Router().get('/v1/openapi.json', (_req, res) => {
    res.json(doc);
  });
}
