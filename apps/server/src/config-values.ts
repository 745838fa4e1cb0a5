/**
 * The checks of the environment's single values, before the configuration is put together: the
 * error that names a variable, the value types, secrets read from files, and TRUST_PROXY.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';

/** A variable of the environment was set to a value the server cannot use. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
export const optionalText = z.preprocess(blankToUndefined, z.string().optional());
const portMessage = 'must be a port number from 0 to 65535';
export const port = z.coerce
  .number({ error: portMessage })
  .int({ error: portMessage })
  .min(0, { error: portMessage })
  .max(65_535, { error: portMessage });
const positiveIntMessage = 'must be a whole number greater than 0';
export const positiveInt = z.coerce
  .number({ error: positiveIntMessage })
  .int({ error: positiveIntMessage })
  .positive({ error: positiveIntMessage });
export const markerList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((marker) => marker.trim().toLowerCase())
      .filter((marker) => marker !== ''),
  )
  .refine((markers) => markers.length > 0, 'must name at least one marker');

/** The secrets that may also come from a file named by `<NAME>_FILE` (a mounted secret). */
const secretsFromFiles = [
  'AUTH_SIGNING_KEY',
  'KBA_PEPPER',
  'SECOND_FACTOR_KEY',
  'DATABASE_URL',
  'SMTP_URL',
  'METRICS_TOKEN',
] as const;

const isSet = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/**
 * The environment with each `<NAME>_FILE` replaced by the file's content as `<NAME>`, its trailing
 * line breaks dropped. Errors name the variable and the file's path, never what the file holds.
 */
export function withSecretsFromFiles(env: Record<string, string | undefined>): {
  env: Record<string, string | undefined>;
  fromFiles: Set<string>;
} {
  const resolved = { ...env };
  const fromFiles = new Set<string>();
  for (const name of secretsFromFiles) {
    const file = env[`${name}_FILE`];
    if (!isSet(file)) continue;
    if (isSet(env[name])) {
      throw new ConfigError(`${name}_FILE`, `and ${name} are both set: set only one of them`);
    }
    try {
      resolved[name] = readFileSync(file, 'utf8').replace(/(\r?\n)+$/, '');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(`${name}_FILE`, `names a file that cannot be read (${reason}): ${file}`);
    }
    fromFiles.add(name);
  }
  return { env: resolved, fromFiles };
}

const trustEveryHopProblem =
  "must list the proxies' addresses or CIDRs (e.g. 10.0.0.0/8,127.0.0.1) or give their hop count (e.g. 1), not true, which lets every client choose its own address";
/** The names proxy-addr (Fastify's trustProxy) gives to address ranges. */
const namedRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR or a named range, as Fastify's trustProxy takes them. */
function isProxyEntry(entry: string): boolean {
  if (namedRanges.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

export function parseTrustProxy(given: string | undefined): false | number | string[] {
  const value = given?.trim().toLowerCase();
  if (value === undefined || value === 'false') return false;
  if (value === 'true') throw new ConfigError('TRUST_PROXY', trustEveryHopProblem);
  if (/^\d+$/.test(value)) return Number(value) === 0 ? false : Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !isProxyEntry(entry));
  if (wrong !== undefined) {
    throw new ConfigError('TRUST_PROXY', `has "${wrong}", which is not an address, a CIDR or a hop count`);
  }
  return entries;
}
