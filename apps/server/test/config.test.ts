import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, requireMailTransport } from '../src/config.ts';

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      bindAddress: '127.0.0.1',
      publicDomain: 'localhost',
      publicScheme: 'http',
      publicPort: '8080',
      databaseUrl: undefined,
      rateLimitFailures: 30,
      smtpTimeoutSeconds: 10,
      adminDomainMarkers: ['admin'],
      dashDomainMarkers: ['dash'],
      accessTokenMinutes: 15,
      refreshTokenMinutes: 60,
      shutdownGraceSeconds: 10,
      trustProxy: false,
    });
  });

  it.each([
    [{ PORT: '3000' }, '3000'],
    [{ PORT: '3000', PUBLIC_PORT: '443', PUBLIC_SCHEME: 'https' }, ''],
    [{ PORT: '80' }, ''],
    [{ PUBLIC_PORT: '' }, ''],
    [{ PUBLIC_PORT: '8443' }, '8443'],
  ])('builds URLs with the public port from %o', (env, publicPort) => {
    expect(loadConfig(env).publicPort).toBe(publicPort);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PUBLIC_SCHEME', 'ftp'],
    ['PUBLIC_PORT', 'x'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['REDIS_URL', 'localhost:6379'],
    ['SMTP_URL', 'mail.example.com'],
    ['SMTP_TIMEOUT_SECONDS', '0'],
    ['RATE_LIMIT_FAILURES', '0'],
    ['ACCESS_TOKEN_MINUTES', '-5'],
    ['REFRESH_TOKEN_MINUTES', '1.5'],
    ['SESSION_MAX_MINUTES', '0'],
    ['STAFF_IDLE_MINUTES', 'half an hour'],
    ['SHUTDOWN_GRACE_SECONDS', '0'],
    ['SHUTDOWN_GRACE_SECONDS', 'ten'],
    ['KBA_PEPPER', 'short'],
    ['AUTH_SIGNING_KEY', 'not a key'],
    ['ADMIN_DOMAIN_MARKERS', ' , '],
  ])('stops on a bad %s naming the variable', (variable, value) => {
    let thrown: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variable).toBe(variable);
    expect((thrown as ConfigError).message).toContain(variable);
  });

  it.each([
    [{}, 'log'],
    [{ SMTP_URL: 'smtp://mail.example.com' }, 'smtp'],
    [{ SMTP_URL: 'smtp://mail.example.com', MAIL_TRANSPORT: 'log' }, 'log'],
    [{ DATABASE_URL: 'postgres://db/entry', SMTP_URL: 'smtp://mail.example.com' }, 'smtp'],
    [{ DATABASE_URL: 'postgres://db/entry', MAIL_TRANSPORT: 'log' }, 'log'],
    [{ PUBLIC_SCHEME: 'https', MAIL_TRANSPORT: 'log' }, 'log'],
  ])('sends mail as %o says: %s', (env, transport) => {
    expect(requireMailTransport(loadConfig(env))).toBe(transport);
  });

  it.each([{ DATABASE_URL: 'postgres://db/entry' }, { PUBLIC_SCHEME: 'https' }])(
    'refuses to start a deployment (%o) that would print its mail, naming SMTP_URL and MAIL_TRANSPORT',
    (env) => {
      const config = loadConfig(env);
      expect(() => requireMailTransport(config)).toThrow(ConfigError);
      expect(() => requireMailTransport(config)).toThrow(/SMTP_URL.*MAIL_TRANSPORT=log/);
    },
  );

  it('stops on MAIL_TRANSPORT=smtp without SMTP_URL, and on an unknown transport', () => {
    expect(() => loadConfig({ MAIL_TRANSPORT: 'smtp' })).toThrow(
      'Invalid configuration: MAIL_TRANSPORT is smtp but SMTP_URL is not set',
    );
    expect(() => loadConfig({ MAIL_TRANSPORT: 'console' })).toThrow(
      'Invalid configuration: MAIL_TRANSPORT must be smtp or log',
    );
  });

  it('reads marker lists and trusted proxies', () => {
    const config = loadConfig({ ADMIN_DOMAIN_MARKERS: 'Admin, ops', TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' });
    expect(config.adminDomainMarkers).toEqual(['admin', 'ops']);
    expect(config.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });
});
