import { hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { ConfigError } from '../config-values.ts';

/**
 * KBA_PEPPER keys the hashes of verification values and one-time codes, and the subscription
 * tokens' key derives from it. With PostgreSQL every instance must share it, so it is required; on
 * the embedded database a local trial gets one generated into DATA_DIR once and reused.
 */
export function resolvePepper(config: Pick<Config, 'pepper' | 'databaseUrl' | 'dataDir'>): string {
  if (config.pepper !== undefined) return config.pepper;
  if (config.databaseUrl !== undefined) {
    throw new ConfigError(
      'KBA_PEPPER',
      'is required when DATABASE_URL is set (the same value on every instance)',
    );
  }
  const file = path.join(config.dataDir, 'kba-pepper');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const pepper = randomBytes(32).toString('base64url');
  writeFileSync(file, pepper, { mode: 0o600 });
  return pepper;
}

/**
 * The key sealing authenticator-app secrets: SECOND_FACTOR_KEY, else one derived from the pepper,
 * which every instance shares already, so a deployment that sets only KBA_PEPPER still agrees.
 */
export function resolveSecondFactorKey(config: Pick<Config, 'secondFactorKey'>, pepper: string): Buffer {
  if (config.secondFactorKey !== undefined) return config.secondFactorKey;
  return Buffer.from(hkdfSync('sha256', pepper, '', 'entry second-factor key', 32));
}
