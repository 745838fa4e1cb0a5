import type { Writable } from 'node:stream';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { AuditLog } from '../services/audit.ts';

/** What an operator command works with; built once per run by `runCli`. */
interface OperatorContext {
  config: Config;
  clock: Clock;
  db: Database;
  /** KBA_PEPPER (or the one generated into DATA_DIR), as the server uses it. */
  pepper: string;
  audit: AuditLog;
  /** Who ran the command, as the audit trail names them: `operator:{login name}`. */
  actor: string;
  stdout: Writable;
  stderr: Writable;
  /**
   * What the command did: `text` for a person, or with `--format json` `data` as one JSON object
   * on standard output instead.
   */
  report(text: string | readonly string[], data: Record<string, unknown>): void;
}

export interface OptionSpec {
  /** How the usage shows the value, e.g. `<subdomain>`. */
  value: string;
  description: string;
  required?: boolean;
  /** The only values allowed, checked before the command runs. */
  choices?: readonly string[];
}

export type OptionValues = Record<string, string | undefined>;

/** One operator command: `{family} {name} --option value ...`. */
export interface OperatorCommand {
  family: string;
  name: string;
  summary: string;
  options: Record<string, OptionSpec>;
  run(options: OptionValues, ctx: OperatorContext): Promise<void>;
}

/** A mistake in how the command was typed: shown with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: OperatorCommand,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The value of an option the command spec marks as required (checked before `run`). */
export function requiredOption(options: OptionValues, name: string): string {
  const value = options[name];
  if (value === undefined) throw new UsageError(`--${name} is required.`);
  return value;
}

export function booleanOption(options: OptionValues, name: string): boolean | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name} must be true or false.`);
}

export function integerOption(options: OptionValues, name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number.`);
  return Number(value);
}

/** Writes one line to an output stream. */
export function writeLine(stream: Writable, line = ''): void {
  stream.write(`${line}\n`);
}
