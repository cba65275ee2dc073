/**
 * The layers of the monorepo, checked by `npm run lint` (dependency-cruiser). From the bottom:
 *
 *   contracts                      wire bodies, events, topics: imports no workspace package
 *   config, observability          foundation: may import contracts only
 *   embedded-postgres              PGlite behind a Postgres-protocol socket: foundation only
 *   migrations                     the migration runner and CLI: foundation + embedded-postgres
 *   db, bus, queue, http,          data access, transport, HTTP plumbing, engine, analysers:
 *   policy, intelligence           contracts + foundation, never each other (nor the two above)
 *   services/*                     any lib, never another service
 *   services/standalone            the composition root of `npm start`: may import the services
 *   clients/typescript             contracts only (it ships to users)
 *   clients/mcp-guard              the TypeScript client only (it ships to users)
 *
 * The rules apply to `src/` (tests may import what they exercise). A lib never imports a service;
 * nothing may form a cycle. Why: docs/decisions.md "Layers are
 * checked by lint". `test/layering.test.ts` shows each rule fires on a made-up tree.
 */
const DOMAIN = '(db|bus|queue|http|policy|intelligence|embedded-postgres)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules may not import each other in a cycle.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contracts-at-the-bottom',
      severity: 'error',
      comment: 'libs/contracts is the bottom layer: it imports no other workspace package.',
      from: { path: '^libs/contracts/src/' },
      to: { path: '^(libs|services|clients)/', pathNot: '^libs/contracts/' },
    },
    {
      name: 'foundation-imports-contracts-only',
      severity: 'error',
      comment: 'libs/config and libs/observability may import libs/contracts only.',
      from: { path: '^libs/(config|observability)/src/' },
      to: { path: '^(libs|services|clients)/', pathNot: '^libs/($1|contracts)/' },
    },
    {
      name: 'domain-libs-are-siblings',
      severity: 'error',
      comment:
        'Storage, transport, HTTP, engine and analysers do not import each other (e.g. libs/db must not ' +
        'depend on the analysers above it): shared types go to libs/contracts.',
      from: { path: `^libs/${DOMAIN}/src/` },
      to: { path: `^libs/(${DOMAIN.slice(1, -1)}|migrations)/`, pathNot: '^libs/$1/' },
    },
    {
      name: 'migrations-above-embedded-postgres',
      severity: 'error',
      comment:
        'The migration tooling may use the embedded PostgreSQL (to diff schemas) and the foundation, nothing else.',
      from: { path: '^libs/migrations/src/' },
      to: {
        path: '^(libs|services|clients)/',
        pathNot: '^libs/(migrations|embedded-postgres|contracts|config|observability)/',
      },
    },
    {
      name: 'libs-never-import-services',
      severity: 'error',
      comment: 'A lib is below every service.',
      from: { path: '^libs/[^/]+/src/' },
      to: { path: '^(services|clients)/' },
    },
    {
      name: 'no-service-imports-another',
      severity: 'error',
      comment:
        'Services share code through libs only; services/standalone (npm start) is the one composition root.',
      from: { path: '^services/([^/]+)/src/', pathNot: '^services/standalone/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'client-imports-contracts-only',
      severity: 'error',
      comment: 'The TypeScript client ships to users: of the workspace it may import libs/contracts only.',
      from: { path: '^clients/typescript/src/' },
      to: { path: '^(libs|services)/', pathNot: '^libs/contracts/' },
    },
    {
      name: 'mcp-guard-imports-the-client-only',
      severity: 'error',
      comment:
        'The MCP guard proxy ships to users: of the workspace it may import the TypeScript client only, through its public API.',
      from: { path: '^clients/mcp-guard/src/' },
      to: { path: '^(libs|services|clients/(?!mcp-guard/|typescript/src/index\\.ts$))' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(generated|dist|node_modules)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
