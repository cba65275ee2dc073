/**
 * Test fixture process: serves embedded PostgreSQL on a free port and prints one JSON line,
 * `{"url": …, "port": …}` or `{"error": <code>, "message": …}`; stops cleanly when stdin closes
 * or on SIGTERM, then exits 0.
 *
 *   tsx libs/embedded-postgres/test/support/embedded-server.ts <dataDir>
 *
 * PGlite cannot start inside a Jest worker (its loader's dynamic `import()` needs
 * --experimental-vm-modules there), so the tests run it in this separate process.
 */
import { startEmbeddedPostgres } from '../../src';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: embedded-server.ts <dataDir>');
  let server: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  try {
    server = await startEmbeddedPostgres({ dataDir, port: 0 });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    process.stdout.write(`${JSON.stringify({ error: code ?? 'ERROR', message })}\n`);
    process.exit(1);
  }
  const stop = async () => {
    await server.stop();
    process.exit(0);
  };
  process.stdin.on('end', stop).resume();
  process.on('SIGTERM', stop);
  process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port })}\n`);
}

void main();
