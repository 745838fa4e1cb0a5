/**
 * No source file grows past 400 lines, so each stays one purpose a reader takes in at once: every
 * .ts and .tsx file of apps/, packages/, scripts/, bench/ and e2e/, tests apart (`*.test.ts(x)`,
 * `*.spec.ts`), which read as lists of cases. Run by `npm run lint`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sourceFiles } from './import-targets.ts';

export interface LongFile {
  /** Relative to the repository root, with forward slashes. */
  file: string;
  lines: number;
}

export const maximumLines = 400;

const checkedFolders = ['apps', 'packages', 'scripts', 'bench', 'e2e'];

function isSource(name: string): boolean {
  return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.spec.ts');
}

/** Lines as an editor numbers them: a final newline ends the last line and starts none. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

export async function findLongFiles(root: string): Promise<LongFile[]> {
  const long: LongFile[] = [];
  for (const file of await sourceFiles(root)) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    if (!checkedFolders.includes(relative.split('/')[0] ?? '') || !isSource(relative)) continue;
    const lines = lineCount(await readFile(file, 'utf8'));
    if (lines > maximumLines) long.push({ file: relative, lines });
  }
  return long.sort((a, b) => a.file.localeCompare(b.file));
}

async function main(): Promise<void> {
  const long = await findLongFiles(path.resolve(import.meta.dirname, '..'));
  for (const { file, lines } of long) {
    console.error(`${file}: ${lines} lines, over ${maximumLines}: split it by purpose`);
  }
  if (long.length > 0) {
    console.error(`File lengths: ${long.length} file(s) over ${maximumLines} lines.`);
    process.exitCode = 1;
  } else {
    console.info(`File lengths: no source file over ${maximumLines} lines.`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
