import { userInfo } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ApiError } from '../api-error.ts';
import type { Config } from '../config.ts';
import { sendControlCommand } from '../db/data-dir-lock.ts';
import { type DatabaseHandle, openDatabase, schemaOnOpen } from '../db/index.ts';
import { createAuditLog } from '../services/audit.ts';
import { resolvePepper } from '../services/secrets.ts';
import { auditCommands } from './audit.ts';
import { consumersCommands } from './consumers.ts';
import { CommandRefusal, startFailureMessage } from './errors.ts';
import { keysCommands } from './keys.ts';
import { linksCommands } from './links.ts';
import type { OperatorCommand, OptionSpec, OptionValues } from './operator-command.ts';
import { UsageError, writeLine } from './operator-command.ts';
import { tenantCommands } from './tenant.ts';
import { userCommands } from './user.ts';

/** Every operator command, in the order the help lists them. */
const operatorCommands: readonly OperatorCommand[] = [
  ...tenantCommands,
  ...userCommands,
  ...keysCommands,
  ...consumersCommands,
  ...linksCommands,
  ...auditCommands,
];

/** The first word of each operator command: main.ts hands these to `runCli`. */
export const operatorFamilies: readonly string[] = [
  ...new Set(operatorCommands.map((command) => command.family)),
];

export interface CliEnvironment {
  config: Config;
  stdout: Writable;
  stderr: Writable;
  /** Opened on first need only, so help and typing mistakes never touch the database. */
  database: () => Promise<Pick<DatabaseHandle, 'db'>>;
  /** Who runs the command, for the audit trail; default the login name. */
  actor?: string;
}

const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

const invocation = 'npm run cli --';

/** Every command that does not name formats of its own reports as text, or as JSON with `--format json`. */
const reportFormat: OptionSpec = {
  value: 'text|json',
  choices: ['text', 'json'],
  description: 'default text',
};

function optionsOf(command: OperatorCommand): Record<string, OptionSpec> {
  return 'format' in command.options ? command.options : { ...command.options, format: reportFormat };
}

function commandUsage(command: OperatorCommand): string {
  const options = Object.entries(optionsOf(command)).map(([name, spec]) =>
    spec.required ? `--${name} ${spec.value}` : `[--${name} ${spec.value}]`,
  );
  const lines = [
    `${invocation} ${command.family} ${command.name} ${options.join(' ')}`.trimEnd(),
    `  ${command.summary}`,
  ];
  for (const [name, spec] of Object.entries(optionsOf(command))) {
    lines.push(`    --${`${name} ${spec.value}`.padEnd(34)} ${spec.description}`);
  }
  return lines.join('\n');
}

/** The whole help: the server's own commands, then every operator command with its options. */
function usage(): string {
  return [
    'Usage:',
    `${invocation} serve            start the server (also: npm start)`,
    `${invocation} demo [--json]    create and print the demo data`,
    `${invocation} migrate          apply the pending database migrations, then exit`,
    `${invocation} backup --out <file>    back up the embedded database, also while the server runs`,
    `${invocation} restore --from <file>  restore it into a DATA_DIR no process holds`,
    `${invocation} --version        print the version`,
    'From a build, with no TypeScript loader: node apps/server/dist/main.js <command> (docs/operations.md, "Deploy").',
    '',
    'Operator commands (they use DATABASE_URL, or the PGlite database in DATA_DIR, through the server when one holds it):',
    '',
    ...operatorCommands.map((command) => `${commandUsage(command)}\n`),
    `Add --help (or -h) to any command for its options. Reference: docs/operations.md.`,
  ].join('\n');
}

function findCommand(argv: readonly string[]): OperatorCommand {
  const [family, name] = argv;
  const inFamily = operatorCommands.filter((command) => command.family === family);
  if (inFamily.length === 0) throw new UsageError(`Unknown command "${family ?? ''}".`);
  const command = inFamily.find((candidate) => candidate.name === name);
  if (command === undefined) {
    const names = inFamily.map((candidate) => candidate.name).join(', ');
    throw new UsageError(
      name === undefined || name.startsWith('-')
        ? `"${family}" needs a command: ${names}.`
        : `Unknown command "${family} ${name}". "${family}" has: ${names}.`,
    );
  }
  return command;
}

function parseOptions(command: OperatorCommand, args: string[]): OptionValues | 'help' {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(
          Object.keys(optionsOf(command)).map((name) => [name, { type: 'string' as const }]),
        ),
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
  if (parsed.values.help === true) return 'help';
  const values: OptionValues = {};
  for (const [name, spec] of Object.entries(optionsOf(command))) {
    const value = parsed.values[name];
    const text = typeof value === 'string' ? value : undefined;
    if (text === undefined && spec.required) throw new UsageError(`--${name} is required.`, command);
    if (text !== undefined && spec.choices !== undefined && !spec.choices.includes(text)) {
      throw new UsageError(`--${name} must be one of: ${spec.choices.join(', ')}.`, command);
    }
    values[name] = text;
  }
  return values;
}

function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** How a failure reads for the operator: the error code, its message, and each item it names. */
function describeFailure(error: ApiError | CommandRefusal): string {
  const lines = [`${error.errorCode}: ${error.message}`];
  for (const item of error instanceof ApiError ? error.errors : []) {
    if (item.message !== error.message) lines.push(`  ${item.field}: ${item.message}`);
  }
  return lines.join('\n');
}

/**
 * Runs one operator command (`argv` without the program: `['tenant', 'list']`) and returns the
 * exit code: 0 done, 1 refused or failed (the reason on stderr), 2 mistyped (with the usage).
 */
export async function runCli(argv: readonly string[], env: CliEnvironment): Promise<number> {
  const { stdout, stderr } = env;
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    writeLine(argv.length === 0 ? stderr : stdout, usage());
    return argv.length === 0 ? exitCodes.usage : exitCodes.ok;
  }
  let command: OperatorCommand | undefined;
  try {
    command = findCommand(argv);
    const options = parseOptions(command, argv.slice(2));
    if (options === 'help') {
      writeLine(stdout, commandUsage(command));
      return exitCodes.ok;
    }
    const { db } = await env.database();
    const { config } = env;
    const asJson = options.format === 'json' && !('format' in command.options);
    let reported: Record<string, unknown> | undefined;
    await command.run(options, {
      config,
      clock: config.clock,
      db,
      pepper: resolvePepper(config),
      audit: createAuditLog(db, config.clock),
      actor: `operator:${env.actor ?? loginName()}`,
      stdout,
      stderr,
      report(text, data) {
        if (asJson) reported = data;
        else for (const line of typeof text === 'string' ? [text] : text) writeLine(stdout, line);
      },
    });
    if (asJson) writeLine(stdout, JSON.stringify(reported ?? {}));
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      const shown = error.command ?? command;
      writeLine(stderr, error.message);
      writeLine(
        stderr,
        shown === undefined ? `Run "${invocation} help" for the commands.` : commandUsage(shown),
      );
      return exitCodes.usage;
    }
    if (error instanceof ApiError || error instanceof CommandRefusal) {
      writeLine(stderr, describeFailure(error));
      return exitCodes.failed;
    }
    const message = startFailureMessage(error);
    if (message !== undefined) {
      writeLine(stderr, message);
      return exitCodes.failed;
    }
    throw error;
  }
}

/** Options whose value names a file: made absolute before a command is run in another process. */
const fileOptions = ['file', 'out', 'logo'];

/** `argv` with the files it names resolved against this process's working directory. */
function withAbsoluteFiles(argv: readonly string[]): string[] {
  return argv.map((arg, index) => {
    const previous = argv[index - 1];
    if (previous !== undefined && fileOptions.some((name) => previous === `--${name}`) && arg !== 'none') {
      return path.resolve(arg);
    }
    const inline = /^--([a-z]+)=(.+)$/.exec(arg);
    if (
      inline?.[1] !== undefined &&
      inline[2] !== undefined &&
      fileOptions.includes(inline[1]) &&
      inline[2] !== 'none'
    ) {
      return `--${inline[1]}=${path.resolve(inline[2])}`;
    }
    return arg;
  });
}

/**
 * `runCli` as main.ts uses it. With the embedded database held by a running server, the command
 * is sent to that server over the data directory's socket and runs there, with the same output
 * and exit code; otherwise the configured database is opened when needed and closed after.
 */
export async function runOperatorCli(argv: readonly string[], config: Config): Promise<number> {
  const actor = loginName();
  if (config.databaseUrl === undefined) {
    const exit = await sendControlCommand(
      config.dataDir,
      { argv: withAbsoluteFiles(argv), actor },
      { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
    );
    if (exit !== undefined) return exit;
  }
  let handle: DatabaseHandle | undefined;
  try {
    return await runCli(argv, {
      config,
      actor,
      stdout: process.stdout,
      stderr: process.stderr,
      database: async () => {
        handle ??= await openDatabase(config, schemaOnOpen(config));
        return handle;
      },
    });
  } finally {
    await handle?.close();
  }
}
