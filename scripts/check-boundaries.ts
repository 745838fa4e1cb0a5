/**
 * The import boundaries biome cannot see, because they depend on where an import lands rather than
 * on how it is spelled: a feature folder of an app imports no other feature, nothing outside apps/X
 * imports apps/X except through a package export apps/X declares, the server's layers import
 * only downwards (routes, services, stores, db), and only stores run statements: routes and
 * services use no query builder, table, statement, transaction or read cache, only their types. Run by
 * `npm run lint`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { findMissingCitations } from './check-citations.ts';

export interface BoundaryViolation {
  /** Relative to the repository root, with forward slashes. */
  file: string;
  line: number;
  specifier: string;
  rule: 'feature' | 'app' | 'layer' | 'statements';
  /** The feature, app or layer folder, or the package, the import reaches into. */
  into: string;
}

const sourceExtensions = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);
const skippedDirectories = new Set(['node_modules', 'dist', 'coverage', 'test-results', 'playwright-report']);

interface Workspace {
  name: string;
  directory: string;
  exports: Set<string>;
}

/** The app folder (`apps/<name>`) a repository path lies in, if any. */
function appOf(file: string): string | undefined {
  return /^(apps\/[^/]+)\//.exec(file)?.[1];
}

/** The feature folder (`apps/<name>/src/features/<feature>`) a repository path lies in, if any. */
function featureOf(file: string): string | undefined {
  return /^(apps\/[^/]+\/src\/features\/[^/]+)\//.exec(file)?.[1];
}

/** The server's layers, highest first: each imports only the layers after it. */
const serverLayers: readonly string[] = ['routes', 'services', 'stores', 'db'];

/** The server layer folder (`apps/server/src/<layer>`) a repository path lies in, and its rank. */
function layerOf(file: string): { folder: string; rank: number } | undefined {
  const layer = /^apps\/server\/src\/([^/]+)\//.exec(file)?.[1];
  const rank = layer === undefined ? -1 : serverLayers.indexOf(layer);
  return rank === -1 ? undefined : { folder: `apps/server/src/${layer}`, rank };
}

/** The layers that say what happens and leave every statement to the stores. */
const statementFreeLayers = new Set(['routes', 'services']);

/** What only stores may use: the query builder, the database's modules, and the read cache. */
function reservedForStores(specifier: string, imported: string | undefined): string | undefined {
  if (specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/')) return 'drizzle-orm';
  if (imported === undefined) return undefined;
  if (imported.startsWith('apps/server/src/db/')) return 'apps/server/src/db';
  if (imported === 'apps/server/src/stores/read-cache.ts') return imported;
  return undefined;
}

/** Whether an import or re-export brings in types only (`import type`, or every name marked `type`). */
function typesOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) {
    if (statement.isTypeOnly) return true;
    const clause = statement.exportClause;
    return clause !== undefined && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly);
  }
  const clause = statement.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/**
 * A route's or service's imports of what only stores may use (the read cache even for its types),
 * and its transactions, which stores open.
 */
function statementViolations(
  file: string,
  text: string,
  importer: string,
  landing: (specifier: string) => string | undefined,
): BoundaryViolation[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const transactions: BoundaryViolation[] = [];
  const findTransactions = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'transaction'
    ) {
      const call = `${node.expression.getText(source)}(...)`;
      transactions.push({
        file: importer,
        line: lineOf(node),
        specifier: call,
        rule: 'statements',
        into: 'a transaction',
      });
    }
    ts.forEachChild(node, findTransactions);
  };
  findTransactions(source);
  const imports = source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) return [];
    const specifierNode = statement.moduleSpecifier;
    if (specifierNode === undefined || !ts.isStringLiteral(specifierNode)) return [];
    const specifier = specifierNode.text;
    const into = reservedForStores(specifier, landing(specifier));
    if (into === undefined) return [];
    if (typesOnly(statement) && into !== 'apps/server/src/stores/read-cache.ts') return [];
    return [{ file: importer, line: lineOf(statement), specifier, rule: 'statements' as const, into }];
  });
  return [...imports, ...transactions];
}

async function sourceFiles(root: string, directory = root): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || skippedDirectories.has(entry.name)) continue;
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(root, entryPath)));
    else if (sourceExtensions.has(path.extname(entry.name))) files.push(entryPath);
  }
  return files;
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** The subpaths (`.`, `./testing`) a package.json `exports` field makes public. */
function exportedSubpaths(exportsField: unknown): string[] {
  if (typeof exportsField === 'string') return ['.'];
  if (typeof exportsField !== 'object' || exportsField === null) return [];
  const keys = Object.keys(exportsField);
  return keys.some((key) => key.startsWith('.')) ? keys : ['.'];
}

function workspacesOf(root: string): Workspace[] {
  const declared = readJson(path.join(root, 'package.json')).workspaces;
  const patterns = Array.isArray(declared) ? declared.filter((entry) => typeof entry === 'string') : [];
  const directories = patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [path.join(root, pattern)];
    const parent = path.join(root, pattern.slice(0, -2));
    return existsSync(parent) ? readdirSync(parent).map((name) => path.join(parent, name)) : [];
  });
  return directories.flatMap((directory) => {
    const manifestPath = path.join(directory, 'package.json');
    if (!existsSync(manifestPath)) return [];
    const { name, exports } = readJson(manifestPath);
    if (typeof name !== 'string') return [];
    return [{ name, directory, exports: new Set(exportedSubpaths(exports)) }];
  });
}

/** The compiler options of the tsconfig.json nearest to a file, for its `paths` aliases. */
function compilerOptionsFinder(root: string): (file: string) => ts.CompilerOptions | undefined {
  const byDirectory = new Map<string, ts.CompilerOptions | undefined>();
  const find = (directory: string): ts.CompilerOptions | undefined => {
    if (byDirectory.has(directory)) return byDirectory.get(directory);
    const configPath = path.join(directory, 'tsconfig.json');
    let options: ts.CompilerOptions | undefined;
    if (existsSync(configPath)) {
      const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
      options = ts.parseJsonConfigFileContent(config, ts.sys, directory, undefined, configPath).options;
    } else if (directory !== root && directory !== path.dirname(directory)) {
      options = find(path.dirname(directory));
    }
    byDirectory.set(directory, options);
    return options;
  };
  return (file) => find(path.dirname(file));
}

/**
 * Where an import lands: a path for relative imports, `paths` aliases and deep imports into a
 * workspace package; undefined for other packages and for a workspace package's declared exports,
 * which are its public surface.
 */
function importTarget(
  file: string,
  specifier: string,
  workspaces: Workspace[],
  compilerOptionsOf: (file: string) => ts.CompilerOptions | undefined,
): string | undefined {
  if (specifier === '.' || specifier === '..' || /^\.\.?\//.test(specifier)) {
    return path.resolve(path.dirname(file), specifier);
  }
  const workspace = workspaces.find(({ name }) => specifier === name || specifier.startsWith(`${name}/`));
  if (workspace !== undefined) {
    const subpath = `.${specifier.slice(workspace.name.length)}`;
    return workspace.exports.has(subpath) ? undefined : path.join(workspace.directory, subpath);
  }
  const options = compilerOptionsOf(file);
  if (options?.paths === undefined) return undefined;
  const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule;
  return resolved === undefined || resolved.isExternalLibraryImport === true
    ? undefined
    : resolved.resolvedFileName;
}

export async function findBoundaryViolations(root: string): Promise<BoundaryViolation[]> {
  const workspaces = workspacesOf(root);
  const compilerOptionsOf = compilerOptionsFinder(root);
  const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const violations: BoundaryViolation[] = [];
  for (const file of await sourceFiles(root)) {
    const text = await readFile(file, 'utf8');
    const importer = relative(file);
    const importerFeature = featureOf(importer);
    const importerLayer = layerOf(importer);
    const landings = new Map<string, string>();
    for (const { fileName: specifier, pos } of ts.preProcessFile(text, true, true).importedFiles) {
      const target = importTarget(file, specifier, workspaces, compilerOptionsOf);
      if (target === undefined) continue;
      const imported = relative(target);
      landings.set(specifier, imported);
      const targetApp = appOf(imported);
      const targetFeature = featureOf(imported);
      const targetLayer = layerOf(imported);
      const line = text.slice(0, pos).split('\n').length;
      if (targetApp !== undefined && targetApp !== appOf(importer)) {
        violations.push({ file: importer, line, specifier, rule: 'app', into: targetApp });
      } else if (
        importerFeature !== undefined &&
        targetFeature !== undefined &&
        targetFeature !== importerFeature
      ) {
        violations.push({ file: importer, line, specifier, rule: 'feature', into: targetFeature });
      } else if (
        importerLayer !== undefined &&
        targetLayer !== undefined &&
        targetLayer.rank < importerLayer.rank
      ) {
        violations.push({ file: importer, line, specifier, rule: 'layer', into: targetLayer.folder });
      }
    }
    if (importerLayer !== undefined && statementFreeLayers.has(path.basename(importerLayer.folder))) {
      violations.push(...statementViolations(file, text, importer, (specifier) => landings.get(specifier)));
    }
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

const explanations: Record<BoundaryViolation['rule'], string> = {
  feature: 'a feature imports no other feature; move what they share to components/ or lib/',
  app: 'only the app itself imports its files; elsewhere import a package export it declares in its package.json',
  layer:
    'the server imports downwards only (routes, services, stores, db); move what both need to the lower layer',
  statements:
    'only stores run statements and transactions and use the read cache; routes and services call a store function (types may be imported)',
};

async function main(): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  const violations = await findBoundaryViolations(root);
  for (const { file, line, specifier, rule, into } of violations) {
    console.error(`${file}:${line}: '${specifier}' reaches into ${into}: ${explanations[rule]}`);
  }
  if (violations.length > 0) {
    console.error(`Import boundaries: ${violations.length} violation(s).`);
    process.exitCode = 1;
  } else {
    console.info('Import boundaries: no violations.');
  }
  const missingCitations = await findMissingCitations(root);
  for (const { file, line, cited } of missingCitations) {
    console.error(`${file}:${line}: cites ${cited}, which the repository lacks: cite docs/ or say the why`);
  }
  if (missingCitations.length > 0) process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
