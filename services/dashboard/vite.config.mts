import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Vite build of the dashboard: static files in `dist/`, served by the api and the standalone at `/`.
 * `npm run dev -w @agent-warden/dashboard` proxies `/v1` to a running `npm start` (WARDEN_URL,
 * default http://127.0.0.1:7400) so cookies stay same-origin.
 */
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
  server: {
    proxy: { '/v1': { target: process.env.WARDEN_URL ?? 'http://127.0.0.1:7400', changeOrigin: false } },
  },
});
