/**
 * Where the repository's imports land, for the boundary lint: its source files, its workspace
 * packages with the subpaths each exports, and the file a specifier resolves to (relative paths,
 * tsconfig `paths` aliases, workspace packages).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

const sourceExtensions = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);
const skippedDirectories = new Set(['node_modules', 'dist', 'coverage', 'test-results', 'playwright-report']);

export interface Workspace {
  name: string;
  directory: string;
  /** Each subpath (`.`, `./testing`) the package makes public, and the file it maps to if one. */
  exports: Map<string, string | undefined>;
}

export async function sourceFiles(root: string, directory = root): Promise<string[]> {
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

export function workspacesOf(root: string): Workspace[] {
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
export function compilerOptionsFinder(root: string): (file: string) => ts.CompilerOptions | undefined {
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
export function importTarget(
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
