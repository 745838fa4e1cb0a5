import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

/**
 * Playwright drives the built web app (apps/web/dist) and the real server in Debian's Chromium.
 * Two servers run, each on a fresh data directory: the main one for every flow, and one whose copy
 * of the build the update test may change, so a new version never reaches the other tests.
 */
export const mainPort = 4173;
export const updatePort = 4174;

const repositoryRoot = path.resolve(import.meta.dirname, '..');
const webDist = path.join(repositoryRoot, 'apps/web/dist');

// The config is evaluated again in every worker; the run directory made by the runner is inherited.
if (process.env.E2E_RUN_DIR === undefined) {
  const builds = [path.join(webDist, 'index.html'), path.join(repositoryRoot, 'apps/server/dist/main.js')];
  if (!builds.every((file) => existsSync(file))) {
    throw new Error('Build the web app and the server first: npm run build');
  }
  const runDir = mkdtempSync(path.join(tmpdir(), 'entry-e2e-'));
  cpSync(webDist, path.join(runDir, 'update-web-dist'), { recursive: true });
  process.env.E2E_RUN_DIR = runDir;
}
export const runDir = process.env.E2E_RUN_DIR;

function server(port: number, name: string, extraEnv: Record<string, string> = {}) {
  return {
    command: 'npm run serve -w apps/server',
    cwd: repositoryRoot,
    url: `http://127.0.0.1:${port}/api/docs/openapi.json`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
    env: {
      PORT: String(port),
      PUBLIC_PORT: String(port),
      PUBLIC_DOMAIN: 'localhost',
      DATA_DIR: path.join(runDir, `${name}-data`),
      // The suite opens unknown links on purpose; the per-IP failure limit has its own tests.
      RATE_LIMIT_FAILURES: '100000',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
  };
}

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: `http://localhost:${mainPort}`,
    browserName: 'chromium',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    { name: 'chromium', testDir: './entry', use: { ...devices['Desktop Chrome'] } },
    // The portal specs start a server of their own per worker (real SMTP, movable clock), which needs the room.
    { name: 'portal', testDir: './portal', timeout: 60_000, use: { ...devices['Desktop Chrome'] } },
  ],
  webServer: [
    server(mainPort, 'main'),
    server(updatePort, 'update', { WEB_DIST_DIR: path.join(runDir, 'update-web-dist') }),
  ],
});
