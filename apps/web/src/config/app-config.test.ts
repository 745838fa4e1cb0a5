import { appConfigSchema } from '@entry/domain';
import { describe, expect, it } from 'vitest';
import { parseAppConfig, readAppConfig } from './app-config.ts';

const valid = {
  domain: 'localhost',
  scheme: 'http',
  port: '8080',
  adminDomainMarkers: ['admin'],
  dashDomainMarkers: [],
};

describe('parseAppConfig', () => {
  it.each([
    ['a valid configuration', valid],
    ['https without a port', { ...valid, scheme: 'https', port: '' }],
    ['an unknown scheme', { ...valid, scheme: 'ftp' }],
    ['a numeric port', { ...valid, port: 8080 }],
    ['markers that are not strings', { ...valid, adminDomainMarkers: [1] }],
    ['a missing domain', { ...valid, domain: undefined }],
    ['a staff idle time', { ...valid, staffIdleMinutes: 30 }],
    ['a staff idle time of zero', { ...valid, staffIdleMinutes: 0 }],
    ['a staff idle time in fractions', { ...valid, staffIdleMinutes: 1.5 }],
    ['null', null],
  ])('agrees with the domain schema on %s', (_name, value) => {
    const schemaAccepts = appConfigSchema.safeParse(value).success;
    if (schemaAccepts) expect(parseAppConfig(value)).toEqual(appConfigSchema.parse(value));
    else expect(() => parseAppConfig(value)).toThrow();
  });
});

describe('readAppConfig', () => {
  it('reads the JSON the server wrote into the page', () => {
    document.head.innerHTML = `<script type="application/json" id="app-config">${JSON.stringify(valid)}</script>`;
    expect(readAppConfig(document)).toEqual(valid);
  });

  it('fails loudly when the server left the placeholder empty', () => {
    document.head.innerHTML = '<script type="application/json" id="app-config"></script>';
    expect(() => readAppConfig(document)).toThrow(/app-config/);
  });
});
