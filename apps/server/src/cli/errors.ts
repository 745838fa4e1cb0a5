import type { ErrorCode } from '@entry/domain';
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

/**
 * The refusals only a command can meet: the console checks the same things on its own page's
 * fields before it calls the services, so no HTTP call answers these.
 */
const commandRefusals = {
  tenantRequired: 'A customer user belongs to a tenant: name it with --tenant.',
  tenantForbidden: 'An admin user belongs to no tenant: leave out --tenant.',
  nothingToUpdate:
    'Name at least one detail to change: --name, --phone, --email, --hours, --website, --logo, --staff-second-factor, --default-language, --debt-collector, --mfa-required or --max-password-age-days.',
} as const;

/** A command refused for its options' values: printed as the API's refusals are, and exit code 1. */
export class CommandRefusal extends Error {
  readonly errorCode: ErrorCode = 'InvalidValue';

  constructor(name: keyof typeof commandRefusals) {
    super(commandRefusals[name]);
    this.name = 'CommandRefusal';
  }
}
