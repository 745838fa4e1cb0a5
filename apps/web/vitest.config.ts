import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: {
    alias: {
      // The PWA plugin provides this module at build time; tests give the app's update flow a stand-in.
      'virtual:pwa-register': fileURLToPath(new URL('./src/testing/pwa-register-stub.ts', import.meta.url)),
    },
  },
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'vite-plugins/**/*.test.ts'],
    setupFiles: ['./src/testing/setup.ts'],
  },
});
