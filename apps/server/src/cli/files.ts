import { access, constants } from 'node:fs/promises';
import { UsageError } from './operator-command.ts';

/** Fails with a plain message when an input file cannot be read, before any work starts. */
export async function openInputFile(path: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch {
    throw new UsageError(`Cannot read the file ${path}.`);
  }
}
