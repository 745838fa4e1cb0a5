import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { showLanguage } from '../i18n/language.ts';

afterEach(async () => {
  cleanup();
  window.sessionStorage.clear();
  await showLanguage('en');
});
