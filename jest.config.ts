import type { Config } from 'jest';

const swc = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
] as [string, Record<string, unknown>];
const transform: Config['transform'] = {
  '^.+\\.(t|j)sx?$': swc,
  // The OTLP exporters' transport (`@opentelemetry/otlp-exporter-base`, .cjs) loads `http` with a
  // dynamic import(), which jest's module sandbox refuses: swc turns it into a require().
  '^.+/@opentelemetry/otlp-exporter-base/.+\\.cjs$': swc,
};
const common = {
  transform,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.warden/'],
  // `@platformatic/kafka` and its `@platformatic/*` dependencies are ES modules: compiled to CommonJS
  // like our own sources (swc rewrites `import.meta.url`). So are the Vercel AI SDK (`ai`, test-only:
  // clients/typescript/test/ai-sdk*.test.ts) and the ES modules it loads (`@ai-sdk/*`, `@workflow/*`,
  // `@vercel/*`, `@standard-schema/*`, `eventsource-parser`, `zod/v4` files), and `@opentelemetry/otlp-exporter-base` (tests only: see `transform`).
  // (`otlp-exporter-base` may sit nested under an exporter's own node_modules: matched anywhere in the path.)
  transformIgnorePatterns: [
    '^(?!.*/@opentelemetry/otlp-exporter-base/).*/node_modules/(?!(@platformatic|ai|@ai-sdk|@standard-schema|@workflow|@vercel|eventsource-parser|zod)/)',
  ],
  // The client's package.json points at its build (dist/, for users); in the monorepo its sources
  // are used, as in tsconfig.base.json "paths" (docs/decisions.md "The TypeScript client ships as a bundle").
  moduleNameMapper: {
    '^@agent-warden/client$': '<rootDir>/clients/typescript/src/index.ts',
    '^@agent-warden/client/ai-sdk$': '<rootDir>/clients/typescript/src/integrations/ai-sdk.ts',
  },
};

/**
 * Two suites split by suffix (docs/conventions.md#tests):
 * - `unit`: `*.test.ts`, no I/O beyond in-process servers;
 * - `integration`: `*.int.test.ts`, real PostgreSQL / Kafka / Redis, started by `infra/` or already running.
 */
const config: Config = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, '\\.int\\.test\\.ts$'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['**/*.int.test.ts'],
      slowTestThreshold: 30,
      // A fresh broker creates __consumer_offsets on the first group join, which takes seconds.
      testTimeout: 60_000,
    },
  ],
};

export default config;
