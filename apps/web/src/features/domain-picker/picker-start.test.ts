import type { AppConfig } from '@entry/domain';
import { describe, expect, it } from 'vitest';
import { consumerPortalUrl, pickerStartFor } from './picker-start.ts';

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: ['admin'],
  dashDomainMarkers: ['dash'],
};

describe('pickerStartFor', () => {
  it.each([
    ['localhost', { kind: 'form' }],
    ['apps.localhost', { kind: 'form' }],
    ['APPS.localhost', { kind: 'form' }],
    ['127.0.0.1', { kind: 'form' }],
    ['sender.localhost', { kind: 'lookup', subdomain: 'sender' }],
    ['apps.admin.localhost', { kind: 'redirect', url: 'http://apps.localhost:4173/a' }],
    ['apps.my-admin-site.localhost', { kind: 'redirect', url: 'http://apps.localhost:4173/a' }],
    ['apps.dash.localhost', { kind: 'redirect', url: 'http://apps.localhost:4173/d' }],
  ])('on %s', (hostname, expected) => {
    expect(pickerStartFor(hostname, config)).toEqual(expected);
  });

  it('reads the markers from the domain, so a provider domain holding one goes to its portal', () => {
    const dashProvider: AppConfig = { ...config, domain: 'dashbilling.example', scheme: 'https', port: '' };
    expect(pickerStartFor('apps.dashbilling.example', dashProvider)).toEqual({
      kind: 'redirect',
      url: 'https://apps.dashbilling.example/d',
    });
    expect(pickerStartFor('dashbilling.example', dashProvider)).toEqual({
      kind: 'redirect',
      url: 'https://apps.dashbilling.example/d',
    });
  });

  it('checks the admin marker before the dash marker', () => {
    expect(pickerStartFor('apps.admin-dash.localhost', config)).toMatchObject({
      url: 'http://apps.localhost:4173/a',
    });
  });

  it('ignores empty markers', () => {
    expect(
      pickerStartFor('localhost', { ...config, adminDomainMarkers: [''], dashDomainMarkers: [] }),
    ).toEqual({
      kind: 'form',
    });
  });
});

describe('consumerPortalUrl', () => {
  it.each([
    [config, 'http://sender.localhost:4173/c/'],
    [
      { ...config, scheme: 'https', port: '', domain: 'example.com' } satisfies AppConfig,
      'https://sender.example.com/c/',
    ],
  ])('builds the portal base for %o', (portalConfig, expected) => {
    expect(consumerPortalUrl(portalConfig, 'sender')).toBe(expected);
  });
});
