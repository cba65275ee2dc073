import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Request } from 'express';
import { z } from 'zod';

/** Where `npm run build -w @agent-warden/dashboard` writes the dashboard (services/dashboard/dist). */
export const DEFAULT_DASHBOARD_DIR = path.resolve(__dirname, '../../../dashboard/dist');

/** `WARDEN_DASHBOARD_DIR`: the dashboard build to serve (default {@link DEFAULT_DASHBOARD_DIR}); spread into a service's config schema. */
export const DashboardEnv = z.object({ WARDEN_DASHBOARD_DIR: z.string().min(1).optional() });

/** Vite puts content-hashed files under `assets/` (its `build.assetsDir`): safe to cache for a year. */
const HASHED_PREFIX = '/assets/';
const LONG_CACHE = 'public, max-age=31536000, immutable';
const NO_CACHE = 'no-cache';

/**
 * Path prefixes that never belong to the dashboard: the API, and the paths probes and scrapers
 * try (`/metrics`, `/healthz`, `/readyz`, ...). A request under one that no router answered gets
 * the 404 problem, never the dashboard's HTML (which would make a wrong probe look healthy).
 */
export const NON_DASHBOARD_PREFIXES = [
  '/v1',
  '/api',
  '/health',
  '/healthz',
  '/ready',
  '/readyz',
  '/livez',
  '/metrics',
  '/openapi.json',
  '/.well-known',
] as const;

function underPrefix(p: string, prefix: string): boolean {
  return p === prefix || p.startsWith(`${prefix}/`);
}

/**
 * True for requests the dashboard's client-side router may own (docs/decisions.md "Only browser
 * navigations fall back to the dashboard"): GET/HEAD, not under {@link NON_DASHBOARD_PREFIXES},
 * no file extension in the last segment, and either `/` itself or an `Accept` header naming
 * `text/html` explicitly (a browser navigation; the wildcard that curl, probes and API clients send
 * is not enough).
 */
function isAppRoute(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const p = req.path;
  if (NON_DASHBOARD_PREFIXES.some((prefix) => underPrefix(p, prefix))) return false;
  const last = p.slice(p.lastIndexOf('/') + 1);
  if (last.includes('.')) return false;
  return p === '/' || /\btext\/html\b/i.test(req.get('accept') ?? '');
}

/** The page `/` answers when the dashboard was not built. */
function notBuiltPage(dir: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent Warden</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>Agent Warden is running</h1>
<p>The API answers under <code>/v1</code> (<a href="/v1/openapi.json">OpenAPI document</a>).</p>
<p>The dashboard is not built: no <code>index.html</code> in <code>${escapeHtml(dir)}</code>. Build it with</p>
<pre>npm run build -w @agent-warden/dashboard</pre>
<p>then reload this page (or point <code>WARDEN_DASHBOARD_DIR</code> at a build).</p>
</body></html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Serves the dashboard build from `dir` (default {@link DEFAULT_DASHBOARD_DIR}; `WARDEN_DASHBOARD_DIR`):
 * its files with `express.static` (hashed `assets/*` cached for a year, immutable; everything else
 * `no-cache`, so a new build is picked up at once), and `index.html` (`no-cache`) for `/` and for
 * browser navigations to client-side routes (`/sessions/…`, so they survive a reload; see
 * `isAppRoute`). Mount after the API routes and before the 404 handler: `/v1/…`, probe paths such
 * as `/metrics` or `/healthz`, non-browser requests and missing files fall through to it
 * (problem+json 404).
 *
 * Whether a build exists is checked per request, so building while the server runs needs no
 * restart. Without a build, `/` answers a short HTML page saying how to build it.
 */
export function dashboardRouter(options: { dir?: string } = {}): Router {
  const dir = path.resolve(options.dir ?? DEFAULT_DASHBOARD_DIR);
  const indexHtml = path.join(dir, 'index.html');
  const r = Router();
  const files = express.static(dir, {
    index: false,
    redirect: false,
    setHeaders: (res, filePath) => {
      const rel = `/${path.relative(dir, filePath).split(path.sep).join('/')}`;
      res.setHeader('Cache-Control', rel.startsWith(HASHED_PREFIX) ? LONG_CACHE : NO_CACHE);
    },
  });
  r.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path === '/v1' || req.path.startsWith('/v1/')) return next();
    if (!fs.existsSync(indexHtml)) {
      if (req.path !== '/') return next();
      res.status(200).type('html').setHeader('Cache-Control', NO_CACHE).send(notBuiltPage(dir));
      return;
    }
    files(req, res, () => {
      if (!isAppRoute(req)) return next();
      res.setHeader('Cache-Control', NO_CACHE);
      res.sendFile(indexHtml, { headers: { 'Cache-Control': NO_CACHE } }, (err) => {
        if (err) next(err);
      });
    });
  });
  return r;
}
