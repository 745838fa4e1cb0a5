import { assertBuildMatchesSources, runsFromBuild } from './build-check.ts';
import { demoCommand } from './cli/demo.ts';
import { startFailureMessage } from './cli/errors.ts';
import { operatorFamilies, runOperatorCli } from './cli/operator.ts';
import { serve } from './cli/serve.ts';
import { type Config, loadConfig } from './config.ts';

type Command = (config: Config, args: string[]) => Promise<number>;

/** The server's commands; operator commands are added here, one entry each. */
const commands: Record<string, Command> = {
  serve: (config) => serve(config),
  demo: demoCommand,
  ...Object.fromEntries(
    ['help', ...operatorFamilies].map((family): [string, Command] => [
      family,
      (config, args) => runOperatorCli([family, ...args], config),
    ]),
  ),
};

async function main(argv: string[]): Promise<number> {
  const [name = 'serve', ...args] = argv;
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
