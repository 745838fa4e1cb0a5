import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { inlineEntryCss } from './vite-plugins/inline-entry-css.ts';
import { precompress } from './vite-plugins/precompress.ts';
import { reactRouterPureComponents } from './vite-plugins/react-router-pure.ts';
import { routePreloads } from './vite-plugins/route-preloads.ts';

/** In development the Vite server stands in for apps/server, which fills this in production. */
const developmentAppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '5173',
  adminDomainMarkers: ['admin'],
  dashDomainMarkers: ['dash'],
};

/** The chunk of zod (the API client's schemas), the largest part of every portal page. */
const zodChunk = 'zod';

/**
 * The modules the entry chunk shares with the pages' chunks. Left to the bundler, they split into
 * several small files by which lazy chunks use each, and every file is compressed on its own: one
 * chunk keeps the entry page within its budget (bench/RESULTS.md). The tiny modules the picker shares
 * with later pages belong in it too, rather than each in a file of a few dozen bytes.
 */
const entrySharedChunk = {
  name: 'entry-shared',
  test: /node_modules[\\/]react[\\/]|src[\\/](i18n[\\/]language|components[\\/]auth-layout[\\/]layout-texts|lib[\\/](organization|in-next-task|navigation)|config[\\/](paths|app-config-context))\.tsx?$|packages[\\/]domain[\\/]src[\\/](hosts|targets|constants|messages|validation-core)\.ts$/,
};

/**
 * What the staff portal's routes share with the console's pages: one chunk, so the entry chunk's
 * preload list of the staff portal names one file for them rather than one each.
 */
const staffSharedChunk = {
  name: 'staff-shared',
  test: /src[\\/]features[\\/]staff-portal[\\/]common[\\/](staff-scope|step-up|use-factors)\.tsx?$/,
  includeDependenciesRecursively: false,
};

export default defineConfig(() => ({
  plugins: [
    react(),
    reactRouterPureComponents(),
    {
      // apps/server writes `<script type="application/json" id="app-config">` before </head>
      // (apps/server/src/web.ts); the dev server does the same.
      name: 'development-app-config',
      apply: 'serve',
      transformIndexHtml: () => [
        {
          tag: 'script',
          attrs: { type: 'application/json', id: 'app-config' },
          children: JSON.stringify(developmentAppConfig),
          injectTo: 'head',
        },
      ],
    },
    VitePWA({
      registerType: 'prompt',
      // The app registers the worker itself, once it is stable (src/lib/service-worker.ts).
      injectRegister: false,
      manifest: {
        name: 'Account Access',
        short_name: 'Account Access',
        description: 'Find your organization and open your account.',
        theme_color: '#0b4f8a',
        background_color: '#f3f5f8',
        display: 'standalone',
        start_url: '/',
        icons: [{ src: '/logo.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,webmanifest}'],
        navigateFallback: 'index.html',
        // The API and the one-click unsubscribe are never answered from the cache.
        navigateFallbackDenylist: [/^\/api\//],
        cleanupOutdatedCaches: true,
      },
    }),
    // A document opened under `/c/` (a bookmark, a reload) is on its way to the consumer's
    // verification, or to a page that needs the portal layout first. zod, the largest part of what
    // the portal loads and self-contained, runs while the entry chunk is still downloading.
    routePreloads(
      {
        '/c/': ['src/features/consumer-portal/consumer-layout.tsx'],
        '/c/verify-': [
          'src/features/consumer-portal/consumer-layout.tsx',
          'src/features/consumer-portal/verify-pages.tsx',
        ],
      },
      { start: [zodChunk] },
    ),
    inlineEntryCss(),
    precompress(),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every browser that runs this target preloads modules natively; the polyfill would only cost bytes.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      // zod in a chunk of its own, which imports nothing: route-preloads can start it early.
      output: {
        codeSplitting: {
          groups: [{ name: zodChunk, test: /node_modules[\\/]zod[\\/]/ }, entrySharedChunk, staffSharedChunk],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
}));
