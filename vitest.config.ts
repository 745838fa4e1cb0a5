import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The server's database tests run on PGlite always, and a second time on PostgreSQL when
 * TEST_DATABASE_URL is set (CI sets it), so both databases stay supported by one suite.
 */
const postgresUrl = process.env.TEST_DATABASE_URL || '';

function serverProject(name: string, databaseUrl: string): TestProjectInlineConfiguration {
  return {
    extends: './apps/server/vitest.config.ts',
    root: './apps/server',
    test: { name, env: { TEST_DATABASE_URL: databaseUrl } },
  };
}

if (postgresUrl === '') {
  console.info('TEST_DATABASE_URL is unset: the server tests run on PGlite only.');
}

export default defineConfig({
  test: {
    projects: [
      'packages/domain',
      'packages/client',
      'apps/web',
      { test: { name: 'scripts', include: ['scripts/**/*.test.ts'] } },
      serverProject('server (PGlite)', ''),
      ...(postgresUrl === '' ? [] : [serverProject('server (PostgreSQL)', postgresUrl)]),
    ],
  },
});
