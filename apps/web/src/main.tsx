import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { readAppConfig } from './config/app-config.ts';
import './styles/global.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element.');

createRoot(root).render(
  <StrictMode>
    <App config={readAppConfig(document)} />
  </StrictMode>,
);
