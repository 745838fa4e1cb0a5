/**
 * The import boundaries biome cannot see, because they depend on where an import lands rather than
 * on how it is spelled: a feature folder of an app imports no other feature, and an app's shared
 * folders (lib/, components/) import no feature; nothing outside apps/X imports apps/X except
 * through a package export apps/X declares; the server's layers import only downwards (routes,
 * services, stores, db), routes import nothing of db/, not even a type, and only stores run
 * statements: routes and services use no query builder, table, statement, transaction or read
 * cache, only their types; and no file imports itself through a circle of imports. Run by
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
  rule: 'feature' | 'shared' | 'app' | 'layer' | 'routes' | 'statements' | 'circle';
  /**
   * The feature, app or layer folder, or the package, the import reaches into; for a circle, the
   * files of the circle, each importing the next and the last the first.
   */
  into: string;
}

const sourceExtensions = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);
const skippedDirectories = new Set(['node_modules', 'dist', 'coverage', 'test-results', 'playwright-report']);

interface Workspace {
  name: string;
  directory: string;
  /** Each subpath (`.`, `./testing`) the package makes public, and the file it maps to if one. */
  exports: Map<string, string | undefined>;
}

/** The app folder (`apps/<name>`) a repository path lies in, if any. */
function appOf(file: string): string | undefined {
  return /^(apps\/[^/]+)\//.exec(file)?.[1];
}

/** The feature folder (`apps/<name>/src/features/<feature>`) a repository path lies in, if any. */
function featureOf(file: string): string | undefined {
  return /^(apps\/[^/]+\/src\/features\/[^/]+)\//.exec(file)?.[1];
}

/** The shared folder (`apps/<name>/src/lib` or `.../components`) a repository path lies in, if any. */
function sharedFolderOf(file: string): string | undefined {
  return /^(apps\/[^/]+\/src\/(?:lib|components))\//.exec(file)?.[1];
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

/**
 * What routes and services may not import even for its types: the read cache, and statement parts
 * (services hand stores rows; stores make the statements).
 */
const reservedEvenForTypes = new Set(['apps/server/src/stores/read-cache.ts', 'apps/server/src/db/sql.ts']);

const databaseFolder = 'apps/server/src/db';

function inDatabaseFolder(file: string): boolean {
  return file.startsWith(`${databaseFolder}/`);
}

/** What only stores may use: the query builder, the database's modules, and the read cache. */
function reservedForStores(specifier: string, imported: string | undefined): string | undefined {
  if (specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/')) return 'drizzle-orm';
  if (imported === undefined) return undefined;
  if (reservedEvenForTypes.has(imported)) return imported;
  if (inDatabaseFolder(imported)) return databaseFolder;
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
 * A route's or service's imports of what only stores may use (the read cache and statement parts
 * even for their types), and its transactions, which stores open.
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
    if (typesOnly(statement) && !reservedEvenForTypes.has(into)) return [];
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

/**
 * The subpaths (`.`, `./testing`) a package.json `exports` field makes public, each with the file
 * it maps to when the mapping is a plain path (conditions are not followed).
 */
function exportedSubpaths(directory: string, exportsField: unknown): Map<string, string | undefined> {
  const fileOf = (target: unknown) => (typeof target === 'string' ? path.join(directory, target) : undefined);
  if (typeof exportsField === 'string') return new Map([['.', fileOf(exportsField)]]);
  if (typeof exportsField !== 'object' || exportsField === null) return new Map();
  const entries = Object.entries(exportsField);
  if (!entries.some(([key]) => key.startsWith('.'))) return new Map([['.', undefined]]);
  return new Map(entries.map(([key, target]) => [key, fileOf(target)]));
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
    return [{ name, directory, exports: exportedSubpaths(directory, exports) }];
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
 * Where an import lands: `path` for relative imports, `paths` aliases and deep imports into a
 * workspace package; for a workspace package's declared exports, which are its public surface and
 * cross no boundary, only `exported`, the file the export maps to. Both undefined for other packages.
 */
function importTarget(
  file: string,
  specifier: string,
  workspaces: Workspace[],
  compilerOptionsOf: (file: string) => ts.CompilerOptions | undefined,
): { path?: string; exported?: string } {
  if (specifier === '.' || specifier === '..' || /^\.\.?\//.test(specifier)) {
    return { path: path.resolve(path.dirname(file), specifier) };
  }
  const workspace = workspaces.find(({ name }) => specifier === name || specifier.startsWith(`${name}/`));
  if (workspace !== undefined) {
    const subpath = `.${specifier.slice(workspace.name.length)}`;
    return workspace.exports.has(subpath)
      ? { exported: workspace.exports.get(subpath) }
      : { path: path.join(workspace.directory, subpath) };
  }
  const options = compilerOptionsOf(file);
  if (options?.paths === undefined) return {};
  const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule;
  return resolved === undefined || resolved.isExternalLibraryImport === true
    ? {}
    : { path: resolved.resolvedFileName };
}

interface ImportEdge {
  line: number;
  specifier: string;
  imported: string;
}

/**
 * One violation for each circle of imports: for every group of files that reach each other
 * (Tarjan's strongly connected components), the shortest circle through its first file.
 */
function circleViolations(imports: Map<string, ImportEdge[]>): BoundaryViolation[] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    lowest.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const { imported } of imports.get(file) ?? []) {
      if (!imports.has(imported)) continue;
      if (!index.has(imported)) {
        visit(imported);
        lowest.set(file, Math.min(lowest.get(file) ?? 0, lowest.get(imported) ?? 0));
      } else if (onStack.has(imported)) {
        lowest.set(file, Math.min(lowest.get(file) ?? 0, index.get(imported) ?? 0));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    const importsItself = (imports.get(file) ?? []).some(({ imported }) => imported === file);
    if (group.length > 1 || importsItself) groups.push(group.sort());
  };
  for (const file of [...imports.keys()].sort()) if (!index.has(file)) visit(file);
  return groups.map((group) => {
    const [start = ''] = group;
    const members = new Set(group);
    const cameFrom = new Map<string, string>();
    const queue = [start];
    for (let at = 0; at < queue.length && !cameFrom.has(start); at++) {
      const file = queue[at] ?? '';
      for (const { imported } of imports.get(file) ?? []) {
        if (!members.has(imported) || cameFrom.has(imported)) continue;
        cameFrom.set(imported, file);
        queue.push(imported);
      }
    }
    const circle: string[] = [];
    for (let file = cameFrom.get(start); file !== undefined && file !== start; file = cameFrom.get(file)) {
      circle.unshift(file);
    }
    circle.unshift(start);
    const [next = start] = circle.slice(1);
    const edge = (imports.get(start) ?? []).find(({ imported }) => imported === next);
    return {
      file: start,
      line: edge?.line ?? 1,
      specifier: edge?.specifier ?? '',
      rule: 'circle' as const,
      into: [...circle, start].join(' -> '),
    };
  });
}

export async function findBoundaryViolations(root: string): Promise<BoundaryViolation[]> {
  const workspaces = workspacesOf(root);
  const compilerOptionsOf = compilerOptionsFinder(root);
  const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const violations: BoundaryViolation[] = [];
  const imports = new Map<string, ImportEdge[]>();
  for (const file of await sourceFiles(root)) {
    const text = await readFile(file, 'utf8');
    const importer = relative(file);
    const importerFeature = featureOf(importer);
    const importerLayer = layerOf(importer);
    const importerIsRoute = importerLayer?.folder === 'apps/server/src/routes';
    const landings = new Map<string, string>();
    const edges: ImportEdge[] = [];
    imports.set(importer, edges);
    for (const { fileName: specifier, pos } of ts.preProcessFile(text, true, true).importedFiles) {
      const target = importTarget(file, specifier, workspaces, compilerOptionsOf);
      const line = text.slice(0, pos).split('\n').length;
      const landing = target.path ?? target.exported;
      if (landing !== undefined) edges.push({ line, specifier, imported: relative(landing) });
      if (target.path === undefined) continue;
      const imported = relative(target.path);
      landings.set(specifier, imported);
      const targetApp = appOf(imported);
      const targetFeature = featureOf(imported);
      const targetLayer = layerOf(imported);
      const importerShared = sharedFolderOf(importer);
      if (targetApp !== undefined && targetApp !== appOf(importer)) {
        violations.push({ file: importer, line, specifier, rule: 'app', into: targetApp });
      } else if (
        importerFeature !== undefined &&
        targetFeature !== undefined &&
        targetFeature !== importerFeature
      ) {
        violations.push({ file: importer, line, specifier, rule: 'feature', into: targetFeature });
      } else if (importerShared !== undefined && targetFeature !== undefined) {
        violations.push({ file: importer, line, specifier, rule: 'shared', into: targetFeature });
      } else if (importerIsRoute && inDatabaseFolder(imported)) {
        violations.push({ file: importer, line, specifier, rule: 'routes', into: databaseFolder });
      } else if (
        importerLayer !== undefined &&
        targetLayer !== undefined &&
        targetLayer.rank < importerLayer.rank
      ) {
        violations.push({ file: importer, line, specifier, rule: 'layer', into: targetLayer.folder });
      }
    }
    if (importerLayer !== undefined && statementFreeLayers.has(path.basename(importerLayer.folder))) {
      const landing = (specifier: string) => landings.get(specifier);
      const reported = statementViolations(file, text, importer, landing);
      violations.push(...reported.filter(({ into }) => !(importerIsRoute && into === databaseFolder)));
    }
  }
  violations.push(...circleViolations(imports));
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

const explanations: Record<BoundaryViolation['rule'], string> = {
  feature: 'a feature imports no other feature; move what they share to components/ or lib/',
  shared:
    'lib/ and components/ are shared by the features and import none of them; move what they need out of the feature',
  app: 'only the app itself imports its files; elsewhere import a package export it declares in its package.json',
  layer:
    'the server imports downwards only (routes, services, stores, db); move what both need to the lower layer',
  routes:
    'routes import nothing of db/, not even a type; take the type from @entry/domain or the service the route calls',
  statements:
    'only stores run statements and transactions and use the read cache; routes and services call a store function and hand it rows (other types may be imported)',
  circle:
    'no file imports itself through other files; move what the files of the circle share to a file that imports none of them',
};

async function main(): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  const violations = await findBoundaryViolations(root);
  for (const { file, line, specifier, rule, into } of violations) {
    const where = rule === 'circle' ? `closes the circle ${into}` : `reaches into ${into}`;
    console.error(`${file}:${line}: '${specifier}' ${where}: ${explanations[rule]}`);
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
