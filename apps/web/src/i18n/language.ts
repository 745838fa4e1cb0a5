import { type AppConfig, type Language, tenantSubdomainOf } from '@entry/domain';
import { useSyncExternalStore } from 'react';
import { namedInPage } from '../lib/organization.ts';
import type { Catalogue } from './catalogue.ts';

/**
 * The tab's language, beside the spec's storage keys: a choice (the switch, a letter's `?lang=`, the
 * consumer's saved language) holds for every page of the link (docs/decisions/038-consumer-languages.md).
 */
const choiceKey = 'page-language';

let active: Language = 'en';
let spanish: Catalogue | undefined;
const listeners = new Set<() => void>();

function isLanguage(value: unknown): value is Language {
  return value === 'en' || value === 'es';
}

/** Shows the pages in `language`; Spanish once its catalogue has loaded, so no page shows it half translated. */
export async function showLanguage(language: Language): Promise<void> {
  if (language === 'es') spanish ??= (await import('./es.ts')).es;
  active = language;
  document.documentElement.lang = language;
  for (const listener of listeners) listener();
}

/** The tab's remembered choice, if any. */
export function chosenLanguage(): Language | null {
  const stored = window.sessionStorage.getItem(choiceKey);
  return isLanguage(stored) ? stored : null;
}

/** A choice of language for this tab: remembered for the next pages, and shown. */
export function chooseLanguage(language: Language): Promise<void> {
  window.sessionStorage.setItem(choiceKey, language);
  return showLanguage(language);
}

/** The first of the browser's languages that the pages speak. */
function browserLanguage(): Language | null {
  for (const tag of navigator.languages) {
    const language = tag.slice(0, 2).toLowerCase();
    if (isLanguage(language)) return language;
  }
  return null;
}

/**
 * The language of a page at its start, on a tenant's host (the consumer pages; the others stay
 * English): a letter's `?lang=` (then removed from the address), the tab's choice, the browser's
 * languages, the organization's default. The consumer's saved language comes with their link.
 */
export function startLanguage(config: AppConfig): Promise<void> {
  if (tenantSubdomainOf(window.location.hostname, config.domain) === null) return Promise.resolve();
  const address = new URL(window.location.href);
  const requested = address.searchParams.get('lang');
  if (requested !== null) {
    address.searchParams.delete('lang');
    window.history.replaceState(window.history.state, '', address);
    if (isLanguage(requested)) return chooseLanguage(requested);
  }
  return showLanguage(chosenLanguage() ?? browserLanguage() ?? namedInPage()?.defaultLanguage ?? 'en');
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The language the pages show now, for code outside a component's render. */
export function activeLanguage(): Language {
  return active;
}

/** The language the pages show now. */
export function useLanguage(): Language {
  return useSyncExternalStore(subscribe, activeLanguage, activeLanguage);
}

/** A section of the catalogue in the language shown now, for code outside a component's render. */
export function textsOf<Section extends keyof Catalogue>(
  section: Section,
  english: Catalogue[Section],
): Catalogue[Section] {
  return active === 'es' && spanish !== undefined ? spanish[section] : english;
}

/** A section of the catalogue in the language shown now; the component renders again when it changes. */
export function useTexts<Section extends keyof Catalogue>(
  section: Section,
  english: Catalogue[Section],
): Catalogue[Section] {
  useLanguage();
  return textsOf(section, english);
}
