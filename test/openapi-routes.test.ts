import type { Router } from 'express';
import { apiRoutes } from '@agent-warden/api';
import { InMemoryBus } from '@agent-warden/bus';
import { buildOpenApiDocument } from '@agent-warden/contracts';
import { createPrisma, type PrismaClient } from '@agent-warden/db';
import { gatewayRoutes, PolicyStore } from '@agent-warden/gateway';
import { healthRouter, openApiRouter } from '@agent-warden/http';
import { silentLogger } from '@agent-warden/observability';

/**
 * Every HTTP route the services register is in the OpenAPI document (`GET /v1/openapi.json`), and
 * every operation the document names is a registered route: a new route without its contract (or
 * a stale entry in the document) fails here. The routers are built, never called, so the Prisma
 * client below never connects.
 */

/** A layer of an express 5 (router 2.x) stack, as far as this walk needs it. */
interface Layer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  /** true for `router.use(handler)` without a mount path. */
  slash?: boolean;
}

/** `METHOD /path` of every route in a router and its routers, with `:param` written `{param}`. */
function routesOf(router: Router): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const { path, methods } = layer.route;
        if (typeof path !== 'string') throw new Error(`route path is not a string: ${String(path)}`);
        for (const m of Object.keys(methods).filter((k) => methods[k])) {
          out.push(`${m.toUpperCase()} ${path.replace(/:(\w+)/g, '{$1}')}`);
        }
      } else if (layer.handle.stack) {
        // A mount path would have to be prefixed; every router here is mounted at the root.
        if (!layer.slash) throw new Error('a router mounted under a path: teach routesOf its prefix');
        walk(layer.handle.stack);
      }
    }
  };
  walk((router as unknown as { stack: Layer[] }).stack);
  return out;
}

function documentedRoutes(): string[] {
  const doc = buildOpenApiDocument();
  const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    methods.filter((m) => item?.[m]).map((m) => `${m.toUpperCase()} ${path}`),
  );
}

describe('OpenAPI document vs the registered routes', () => {
  let db: PrismaClient;
  let registered: string[];

  beforeAll(() => {
    db = createPrisma('postgresql://unused@127.0.0.1:9/never-connected');
    const logger = silentLogger();
    const routers = [
      healthRouter(() => true),
      openApiRouter(),
      gatewayRoutes({
        db,
        bus: new InMemoryBus(logger),
        policies: new PolicyStore(db, logger),
        logger,
        limits: { maxBodyBytes: 1, maxEventsPerBatch: 1, maxEventBytes: 1 },
        defaultApprovalTimeoutSeconds: 1,
      }),
      apiRoutes({ db, logger }),
    ];
    registered = routers.flatMap(routesOf);
  });

  afterAll(async () => {
    await db.$disconnect();
  });

  test('the walk finds the routers of the api and the gateway', () => {
    expect(registered).toEqual(
      expect.arrayContaining([
        'POST /v1/events',
        'GET /v1/sessions/{sessionId}/events',
        'POST /v1/recommendations/{recommendationId}/decision',
        'GET /health',
      ]),
    );
  });

  test('every registered route is in the document', () => {
    const documented = new Set(documentedRoutes());
    expect(registered.filter((r) => !documented.has(r))).toEqual([]);
  });

  test('every operation in the document is a registered route', () => {
    const routes = new Set(registered);
    expect(documentedRoutes().filter((r) => !routes.has(r))).toEqual([]);
  });
});
