import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, requireMailTransport } from '../src/config.ts';
import { ConfigError } from '../src/config-values.ts';
import { generateSigningKeyPem } from '../src/services/keys.ts';

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

describe('secrets from files', () => {
  const secretsDir = mkdtempSync(path.join(tmpdir(), 'entry-config-'));
  const secretFile = (name: string, content: string): string => {
    const file = path.join(secretsDir, name);
    writeFileSync(file, content, { mode: 0o600 });
    return file;
  };
  afterAll(() => rmSync(secretsDir, { recursive: true, force: true }));

  it('reads each secret from its file, without the trailing line break', () => {
    const pepper = 'pepper-from-a-mounted-file';
    const key = randomBytes(32).toString('base64');
    const config = loadConfig({
      AUTH_SIGNING_KEY_FILE: secretFile('signing-key', generateSigningKeyPem()),
      KBA_PEPPER_FILE: secretFile('pepper', `${pepper}\n`),
      SECOND_FACTOR_KEY_FILE: secretFile('second-factor-key', `${key}\r\n`),
      DATABASE_URL_FILE: secretFile('database-url', 'postgres://entry:secret@db:5432/entry\n'),
      SMTP_URL_FILE: secretFile('smtp-url', 'smtp://mailer:secret@smtp.example.com:587\n'),
      METRICS_TOKEN_FILE: secretFile('metrics-token', 'a-metrics-token-of-some-length\n'),
    });
    expect(config.authSigningKey).toContain('PRIVATE KEY');
    expect(config.authSigningKey?.endsWith('-----')).toBe(true);
    expect(config.pepper).toBe(pepper);
    expect(config.secondFactorKey?.toString('base64')).toBe(key);
    expect(config.databaseUrl).toBe('postgres://entry:secret@db:5432/entry');
    expect(config.smtpUrl).toBe('smtp://mailer:secret@smtp.example.com:587');
    expect(config.metricsToken).toBe('a-metrics-token-of-some-length');
  });

  it('refuses a secret set both ways, naming both variables', () => {
    expect(() =>
      loadConfig({ KBA_PEPPER: 'pepper-from-the-environment', KBA_PEPPER_FILE: secretFile('both', 'x') }),
    ).toThrow(/KBA_PEPPER_FILE and KBA_PEPPER are both set/);
  });

  it('names the variable of a file it cannot read', () => {
    let thrown: unknown;
    try {
      loadConfig({ METRICS_TOKEN_FILE: path.join(secretsDir, 'absent') });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variable).toBe('METRICS_TOKEN_FILE');
    expect((thrown as ConfigError).message).toContain('ENOENT');
  });

  it('names the file variable for a bad value in a file, and never prints what the file holds', () => {
    const content = 'short-secret';
    let thrown: unknown;
    try {
      loadConfig({ KBA_PEPPER_FILE: secretFile('short-pepper', `${content}\n`) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variable).toBe('KBA_PEPPER_FILE');
    expect((thrown as ConfigError).message).not.toContain(content);
  });
});

describe('migrations on start', () => {
  it.each([
    [{}, false],
    [{ MIGRATE: '1' }, true],
    [{ MIGRATE: '0' }, false],
  ])('from %o migrates: %s', (env, migrate) => {
    expect(loadConfig(env).migrate).toBe(migrate);
  });

  it('refuses any other MIGRATE', () => {
    expect(() => loadConfig({ MIGRATE: 'yes' })).toThrow(/MIGRATE must be 1/);
  });
});
