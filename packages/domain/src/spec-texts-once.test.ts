import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every message text of the specification lives exactly once in the code base (in packages/domain),
 * and every other package imports it. This scans the non-test sources of the whole repository,
 * without their comments (a comment may quote a text it refers to).
 */

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const sourceRoots = ['packages', 'apps'];
const sourceFile = /\.(?:ts|tsx|js|jsx|mts|cts)$/;
const testFile = /\.test\.tsx?$/;
const skippedDirectories = new Set(['node_modules', 'dist']);

function sourceFilesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return skippedDirectories.has(entry.name) ? [] : sourceFilesUnder(path);
    return sourceFile.test(entry.name) && !testFile.test(entry.name) ? [path] : [];
  });
}

/** The `src` folders of every workspace under packages/ and apps/. */
function workspaceSourceFiles(): string[] {
  return sourceRoots.flatMap((root) =>
    readdirSync(join(repoRoot, root), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => {
        const src = join(repoRoot, root, entry.name, 'src');
        try {
          return sourceFilesUnder(src);
        } catch {
          return [];
        }
      }),
  );
}

const printer = ts.createPrinter({ removeComments: true });

function codeWithoutComments(path: string): string {
  const kind = path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false, kind);
  return printer.printFile(source);
}

const delimiter = '[\'"`<>]';
const anyPlaceholder = '(?:\\$\\{[^}]*\\}|[^\'"`<>\\n]*)';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A spec text as it may appear in source: inside a string, template or JSX text, each `{placeholder}`
 * standing for a template expression or for a literal value (a hard-coded copy counts too).
 */
function sourcePattern(specText: string): RegExp {
  const body = specText
    .split(/\{[^}]+\}/)
    .map(escapeRegExp)
    .join(anyPlaceholder);
  return new RegExp(`(?<=${delimiter})${body}(?=${delimiter}|\\$\\{)`, 'g');
}

/**
 * The spec's message texts. Texts a page shows with the e-mail address in bold are kept in parts;
 * each part is checked on its own.
 */
const specTexts: ReadonlyArray<readonly [specText: string, inSource: readonly string[]]> = [
  ...[
    'This field is required.',
    'This value must be between 3 and 63 characters long.',
    'This value must be a valid subdomain with no upper case letters.',
    'Invalid domain. Please check your credentials and try again.',
    "The parameter '{name}' must be defined.",
    "The parameter '{name}' cannot be null.",
    '{scope} does not implement {action}',
    '{scope} is not a recognized scope.',
    'A server side error occurred.',
    'An unexpected server error occurred.',
    'The connection to the server has been lost. Please sign in again.',
    'Token has expired.',
    'The server returned an error. Please try again later.',
    'An unknown error occurred. Please try again later.',
    'Enter Domain',
    'If you received a letter in the mail, that letter should include the domain (e.g. sender.{host}).',
    'If you are associated with a partner of the provider, you will need to contact that partner to get the proper domain.',
    'Email Preferences',
    'To stop receiving emails click unsubscribe below.',
    'To start receiving emails click subscribe below.',
    'Need help?',
    'Update Available',
    'Refresh',
  ].map((text) => [text, [text]] as const),
  ['Your email {email} is currently receiving emails.', ['Your email ', ' is currently receiving emails.']],
  ['Your email {email} has been unsubscribed.', ['Your email ', ' has been unsubscribed.']],
];

describe('every message text of the specification exists once in the sources', () => {
  const files = workspaceSourceFiles().map((path) => ({
    path: relative(repoRoot, path),
    text: codeWithoutComments(path),
  }));

  it('scans the domain package among the sources', () => {
    expect(files.map((file) => file.path)).toContain(join('packages', 'domain', 'src', 'messages.ts'));
  });

  it.each(specTexts)('%s', (_specText, parts) => {
    for (const part of parts) {
      const pattern = sourcePattern(part);
      const places = files.flatMap((file) => Array.from(file.text.matchAll(pattern), () => file.path));
      expect(
        places,
        `"${part}" must appear exactly once, found in: ${places.join(', ') || 'nowhere'}`,
      ).toHaveLength(1);
      expect(places[0]?.startsWith(join('packages', 'domain'))).toBe(true);
    }
  });
});
