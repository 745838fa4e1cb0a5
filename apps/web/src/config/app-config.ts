import type { AppConfig } from '@entry/domain';

/** The id of the non-executed JSON script the server fills in `index.html` (docs/rules.md#runtime). */
export const appConfigElementId = 'app-config';

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isPositiveWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

/**
 * Checks the shape of `appConfigSchema` (packages/domain) by hand: the entry chunk cannot carry a
 * schema library within its budget (docs/rules.md#budgets). The server validates with the schema
 * before it writes the page; `app-config.test.ts` keeps the two in step.
 */
export function parseAppConfig(value: unknown): AppConfig {
  if (typeof value === 'object' && value !== null) {
    const { domain, scheme, port, adminDomainMarkers, dashDomainMarkers, staffIdleMinutes } = value as Record<
      string,
      unknown
    >;
    if (
      typeof domain === 'string' &&
      (scheme === 'http' || scheme === 'https') &&
      typeof port === 'string' &&
      isStringArray(adminDomainMarkers) &&
      isStringArray(dashDomainMarkers)
    ) {
      const config: AppConfig = { domain, scheme, port, adminDomainMarkers, dashDomainMarkers };
      if (staffIdleMinutes === undefined) return config;
      if (isPositiveWholeNumber(staffIdleMinutes)) return { ...config, staffIdleMinutes };
    }
  }
  throw new Error('The app configuration in the page is malformed.');
}

/**
 * Reads the public configuration the server wrote into the page, so the app needs no request
 * before it can route. A page served without it (a misconfigured server) fails loudly here
 * rather than building wrong portal addresses later.
 */
export function readAppConfig(doc: Document): AppConfig {
  const text = doc.getElementById(appConfigElementId)?.textContent?.trim() ?? '';
  if (text === '') {
    throw new Error(`The page has no <script id="${appConfigElementId}"> configuration.`);
  }
  return parseAppConfig(JSON.parse(text));
}
