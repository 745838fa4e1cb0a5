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
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { findMissingCitations } from './check-citations.ts';
import { compilerOptionsFinder, importTarget, sourceFiles, workspacesOf } from './import-targets.ts';

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
