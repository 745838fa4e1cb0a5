import { StaleBuildError } from '../build-check.ts';
import { ConfigError } from '../config-values.ts';
import { DataDirInUseError } from '../db/data-dir-lock.ts';
import { SchemaMismatchError } from '../db/migrate.ts';
import { DatabaseStartError } from '../db/postgres-wait.ts';
import { DemoSecretsMissingError } from '../demo/seed.ts';

/** The message a person can act on for a failure at start, or undefined for an unexpected one. */
export function startFailureMessage(error: unknown): string | undefined {
  if (
    error instanceof ConfigError ||
    error instanceof DataDirInUseError ||
    error instanceof DatabaseStartError ||
    error instanceof StaleBuildError ||
    error instanceof SchemaMismatchError ||
    error instanceof DemoSecretsMissingError
  ) {
    return error.message;
  }
  return undefined;
}
