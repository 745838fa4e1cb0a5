import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

/** The demo object printed by `npm run demo -- --json` and kept in DATA_DIR/demo.json. */
export interface DemoData {
  baseUrl: string;
  domain: string;
  tenant: { subdomain: string; customerId: number; customerName: string };
  /** `totpSecret`: the base32 secret of the admin's authenticator app, a demo value like the password. */
  admin: { username: string; password: string; totpSecret: string };
  customer: { username: string; password: string; customerId: number };
  identityTokens: Record<DemoTokenKind, string>;
  verification: { last4Ssn: string; postalCode: string; dateOfBirth: string };
  /** A consumer with no link whose answers no other consumer shares: the token-less path of a trial. */
  withoutLink: { name: string; last4Ssn: string; postalCode: string; dateOfBirth: string };
  consumerEmail: string;
  emailSubscription: { token: string; emailAddress: string };
}

export type DemoTokenKind = 'direct' | 'last4Ssn' | 'postalCode' | 'dateOfBirth' | 'none' | 'expired';

export const demoFilePath = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'demo.json');

/**
 * Keeps the demo object, passwords included, where only the data directory's owner reads it: the
 * demo's passwords exist nowhere else. Written whole under another name first, so a crash mid-write
 * never leaves half a file in its place.
 */
export function writeDemoFile(config: Pick<Config, 'dataDir'>, demo: DemoData): void {
  mkdirSync(config.dataDir, { recursive: true });
  const file = demoFilePath(config);
  const partial = `${file}.partial`;
  writeFileSync(partial, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

export function readDemoFile(config: Pick<Config, 'dataDir'>): DemoData | undefined {
  try {
    return JSON.parse(readFileSync(demoFilePath(config), 'utf8')) as DemoData;
  } catch {
    return undefined;
  }
}
