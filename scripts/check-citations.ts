/**
 * Comments and docs cite only what a clone of the repository holds: never the design notes or the
 * product specification kept outside it, and every `docs/….md` path they name exists, with the
 * heading its `#anchor` points to. Run by `npm run lint` (through check-boundaries.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export interface MissingCitation {
  /** Relative to the repository root, with forward slashes. */
  file: string;
  line: number;
  cited: string;
}

const checkedExtensions = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.md']);
const skippedDirectories = new Set(['node_modules', 'dist', 'coverage', 'test-results', 'playwright-report']);

/** Files that live beside the repository on the machine it was built on, never in a clone. */
const filesOutsideTheRepository = /\bDESIGN\.md\b|\bproduct-spec\.md\b|\.\.\/shared\/|\/work\/shared\b/g;
/** A path into docs/, as comments cite it: `docs/rules.md#budgets`. */
const docsCitation = /(?<![\w./-])docs\/[\w./-]*\w\.md(?:#[\w-]+)?/g;

async function checkedFiles(directory: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || skippedDirectories.has(entry.name)) continue;
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await checkedFiles(entryPath)));
    else if (checkedExtensions.has(path.extname(entry.name))) files.push(entryPath);
  }
  return files;
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading = '']) => anchorOf(heading)));
}

export async function findMissingCitations(root: string): Promise<MissingCitation[]> {
  const anchorsByDoc = new Map<string, Set<string> | undefined>();
  const anchorsIn = (doc: string): Set<string> | undefined => {
    if (!anchorsByDoc.has(doc)) {
      const docPath = path.join(root, doc);
      anchorsByDoc.set(doc, existsSync(docPath) ? anchorsOf(readFileSync(docPath, 'utf8')) : undefined);
    }
    return anchorsByDoc.get(doc);
  };
  const missing: MissingCitation[] = [];
  for (const file of await checkedFiles(root)) {
    const lines = (await readFile(file, 'utf8')).split('\n');
    const relative = path.relative(root, file).split(path.sep).join('/');
    lines.forEach((text, index) => {
      for (const [cited] of text.matchAll(filesOutsideTheRepository)) {
        missing.push({ file: relative, line: index + 1, cited });
      }
      for (const [cited] of text.matchAll(docsCitation)) {
        const [doc = '', anchor] = cited.split('#');
        const anchors = anchorsIn(doc);
        if (anchors === undefined || (anchor !== undefined && !anchors.has(anchor))) {
          missing.push({ file: relative, line: index + 1, cited });
        }
      }
    });
  }
  return missing;
}
