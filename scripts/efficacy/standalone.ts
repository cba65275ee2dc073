/**
 * Starts the standalone service (`npm start`) for an efficacy run when no running service is named:
 * its own process, a fresh data directory (so the project holds nothing but the pack), any free
 * port. The API key comes from the first start's secrets file (services/standalone README).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { readFirstStartSecrets } from '@agent-warden/api';

const ROOT = path.resolve(__dirname, '../..');

/** A standalone service this script started. */
export interface StartedService {
  url: string;
  /** The admin key the first start generated. */
  apiKey: string;
  /** SIGTERM, waits for the exit, removes the data directory. */
  stop(): Promise<void>;
}

/**
 * Spawns `services/standalone/src/main.ts` on a fresh temporary data directory with the embedded
 * database (`DATABASE_URL` is not passed on) and resolves once it logs "agent warden ready".
 * Rejects when it exits first, generates no key, or after `timeoutMs` (default 180 000).
 */
export async function startStandalone(timeoutMs = 180_000): Promise<StartedService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-efficacy-'));
  const { DATABASE_URL: _omitted, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/standalone/src/main.ts'], {
    cwd: ROOT,
    env: { ...env, PORT: '0', LOG_LEVEL: 'info', WARDEN_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    await stopChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await readyUrl(child, timeoutMs);
    const { apiKey } = await readFirstStartSecrets(dataDir);
    if (!apiKey) throw new Error('the standalone service generated no API key');
    return { url, apiKey, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The URL of the "agent warden ready" log line (info level; other lines are read and dropped). */
function readyUrl(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`standalone did not start within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`standalone exited with ${code} before it was ready`));
    });
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const j = JSON.parse(line) as { msg?: string; url?: string };
        if (j.msg === 'agent warden ready' && j.url) {
          clearTimeout(timer);
          resolve(j.url);
        }
      } catch {
        /* not a log line */
      }
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
