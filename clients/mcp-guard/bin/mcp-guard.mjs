#!/usr/bin/env node
// The `mcp-guard` command. The package ships TypeScript sources (like @agent-warden/client in this
// monorepo), so it loads them through tsx's loader (both CommonJS and ESM hooks, as `node --import
// tsx` does); see README.md "Install".
import { register as registerCjs } from 'tsx/cjs/api';
import { register as registerEsm } from 'tsx/esm/api';

registerCjs();
registerEsm();
await import('../src/cli.ts');
