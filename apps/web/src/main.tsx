import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { readAppConfig } from './config/app-config.ts';
import { startLanguage } from './i18n/language.ts';
import './styles/global.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element.');

// The first render runs as a transition: React renders it in slices and lets the browser in
// between, instead of one task that blocks the main thread for the whole of it (the page shows
// the header of index.html meanwhile). docs/rules.md#budgets, Lighthouse's total blocking time.
const config = readAppConfig(document);
const reactRoot = createRoot(root);
// A Spanish page waits for its catalogue, so its first render is already in Spanish.
void startLanguage(config).finally(() =>
  startTransition(() => {
    reactRoot.render(
      <StrictMode>
        <App config={config} />
      </StrictMode>,
    );
  }),
);
