import './node-version.ts';
import { readFileSync } from 'node:fs';
import { assertBuildMatchesSources, runsFromBuild } from './build-check.ts';
import { backupCommand, restoreCommand } from './cli/backup.ts';
import { demoCommand } from './cli/demo.ts';
import { startFailureMessage } from './cli/errors.ts';
import { migrateCommand } from './cli/migrate.ts';
import { operatorFamilies, runOperatorCli } from './cli/operator.ts';
import { serve } from './cli/serve.ts';
import { type Config, loadConfig } from './config.ts';

type Command = (config: Config, args: string[]) => Promise<number>;

/** The server's commands; operator commands are added here, one entry each. */
const commands: Record<string, Command> = {
  serve: (config) => serve(config),
  demo: demoCommand,
  migrate: (config) => migrateCommand(config),
  backup: backupCommand,
  restore: restoreCommand,
  ...Object.fromEntries(
    ['help', ...operatorFamilies].map((family): [string, Command] => [
      family,
      (config, args) => runOperatorCli([family, ...args], config),
    ]),
  ),
};

/** The server's version, from its package.json (beside src/ and dist/ alike). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

async function main(argv: string[]): Promise<number> {
  const [given = 'serve', ...rest] = argv;
  if (given === '--version' || given === '-V') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const [name, args] = given === '--help' || given === '-h' ? ['help', rest] : [given, rest];
  const command = commands[name];
  if (command === undefined) {
    process.stderr.write(`Unknown command "${name}". Commands: ${Object.keys(commands).join(', ')}\n`);
    return 2;
  }
  try {
    if (runsFromBuild) assertBuildMatchesSources(import.meta.dirname);
    return await command(loadConfig(), args);
  } catch (error) {
    const message = startFailureMessage(error);
    process.stderr.write(
      `${message ?? (error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`,
    );
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
