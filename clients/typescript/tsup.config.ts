import { defineConfig } from 'tsup';

/**
 * The published build of `@agent-warden/client` (`npm run build -w clients/typescript`): ES module
 * (`dist/index.mjs`) and CommonJS (`dist/index.js`) bundles with their type declarations
 * (`index.d.mts`, `index.d.ts`), for Node 20+.
 *
 * `@agent-warden/contracts` is a private workspace package: what the client uses of it (schemas,
 * id helpers, limits, types) is bundled in, code and declarations alike, so the package installs
 * from its tarball alone. Its runtime dependencies (`zod`, `uuid`) stay external: they are the
 * client's `dependencies`. tsup also leaves out every other package named in `dependencies` or
 * `peerDependencies` (a framework an adapter wraps belongs in `peerDependencies`) and bundles the
 * rest, which is how contracts' unused `zod-openapi` import is dropped. Why: docs/decisions.md "The
 * TypeScript client ships as a bundle".
 */
export default defineConfig({
  // `@agent-warden/client/ai-sdk`: the Vercel AI SDK adapter, its own entry so `ai` stays optional.
  entry: { index: 'src/index.ts', 'ai-sdk': 'src/integrations/ai-sdk.ts' },
  format: ['esm', 'cjs'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  noExternal: ['@agent-warden/contracts'],
  external: ['zod', 'uuid'],
  dts: true,
  tsconfig: 'tsconfig.build.json',
});
