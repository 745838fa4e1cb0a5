// @vitest-environment-options {"url": "http://sender.localhost:4173/2f3c?lang=es"}

import type { AppConfig } from '@entry/domain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { activeLanguage, chooseLanguage, startLanguage } from './language.ts';

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: [],
  dashDomainMarkers: [],
};

function browserLanguages(languages: string[]) {
  vi.spyOn(navigator, 'languages', 'get').mockReturnValue(languages);
}

describe('the language a consumer page starts in', () => {
  afterEach(() => vi.restoreAllMocks());

  it("is the letter's ?lang= first, which leaves the address and holds for the tab", async () => {
    browserLanguages(['en-US']);
    await startLanguage(config);
    expect(activeLanguage()).toBe('es');
    expect(document.documentElement.lang).toBe('es');
    expect(window.location.pathname + window.location.search).toBe('/2f3c');
    await startLanguage(config);
    expect(activeLanguage()).toBe('es');
  });

  it("is then the tab's choice, over the browser's languages", async () => {
    browserLanguages(['es-MX', 'es']);
    await chooseLanguage('en');
    await startLanguage(config);
    expect(activeLanguage()).toBe('en');
    expect(document.documentElement.lang).toBe('en');
  });

  it("is then the first of the browser's languages that the pages speak", async () => {
    browserLanguages(['fr-FR', 'es-US', 'en']);
    await startLanguage(config);
    expect(activeLanguage()).toBe('es');
    browserLanguages(['en-GB', 'es']);
    await startLanguage(config);
    expect(activeLanguage()).toBe('en');
  });

  it("is then the organization's default, where the browser names neither language", async () => {
    const named = document.createElement('script');
    named.type = 'application/json';
    named.id = 'organization';
    named.textContent = JSON.stringify({
      subdomain: 'sender',
      name: 'Sender Collections',
      defaultLanguage: 'es',
    });
    document.head.append(named);
    browserLanguages(['fr-FR']);
    await startLanguage(config);
    expect(activeLanguage()).toBe('es');
  });

  it('stays English off a tenant host: the staff pages and the domain picker', async () => {
    browserLanguages(['es-MX']);
    await startLanguage({ ...config, domain: 'example.com' });
    expect(activeLanguage()).toBe('en');
  });
});
