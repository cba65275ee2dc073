import { defineConfig } from 'tsup';

/**
 * The published build of `@agent-warden/mcp-guard` (`npm run build -w clients/mcp-guard`, run by
 * `npm pack`): one CommonJS file with a shebang, `dist/cli.js`, the package's `bin`. The
 * monorepo's `@agent-warden/client` and `@agent-warden/contracts` are bundled in (private workspace
 * packages, as in the client's own build); the MCP SDK, zod and uuid stay external, the package's
 * `dependencies`. In the repository the command runs from its sources instead (bin/mcp-guard.mjs,
 * through tsx). Why: docs/decisions.md "The TypeScript client ships as a bundle".
 */
export default defineConfig({
  entry: { cli: 'src/cli.ts', index: 'src/index.ts' },
  format: ['cjs'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  noExternal: ['@agent-warden/client', '@agent-warden/contracts'],
  external: ['@modelcontextprotocol/sdk', 'zod', 'uuid'],
  banner: ({ format }) => (format === 'cjs' ? { js: '#!/usr/bin/env node' } : {}),
  dts: false,
  tsconfig: 'tsconfig.build.json',
});
