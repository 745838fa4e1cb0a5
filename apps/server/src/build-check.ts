import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Whether this process runs the build (`apps/server/dist`) rather than the sources through tsx. */
export const runsFromBuild = !import.meta.url.endsWith('.ts');

/**
 * What a build of the server is made of, from the repository's root: its own sources and those of
 * the workspace's packages, which the build bundles (`scripts/build.ts`) or the web app's build does.
 */
function sourceDirectories(repositoryRoot: string): string[] {
  const packagesDirectory = path.join(repositoryRoot, 'packages');
  const packages = existsSync(packagesDirectory) ? readdirSync(packagesDirectory).sort() : [];
  return ['apps/server/src', ...packages.map((name) => `packages/${name}/src`)].filter((directory) =>
    existsSync(path.join(repositoryRoot, directory)),
  );
}

/** Where the build keeps the digest of the sources it was made from. */
export const buildRecordFile = 'build.json';

/** A digest of the sources' paths and contents, tests left out (they are not in the build). */
export function sourcesDigest(repositoryRoot: string): string {
  const hash = createHash('sha256');
  for (const directory of sourceDirectories(repositoryRoot)) {
    const files = readdirSync(path.join(repositoryRoot, directory), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !/\.test\.tsx?$/.test(entry.name))
      .map((entry) => path.relative(repositoryRoot, path.join(entry.parentPath, entry.name)))
      .sort();
    for (const file of files) {
      hash
        .update(file)
        .update('\0')
        .update(readFileSync(path.join(repositoryRoot, file)))
        .update('\0');
    }
  }
  return hash.digest('hex');
}

export class StaleBuildError extends Error {
  constructor() {
    super(
      'The server was built from other sources than the ones beside it (apps/server/dist is out of date): run npm run build, then start it again.',
    );
  }
}

/**
 * Refuses to run a build that is not made of the sources beside it: after an update without
 * `npm run build`, the server would run the old code and the old migrations. A build deployed
 * without its sources is not checked.
 */
export function assertBuildMatchesSources(distDirectory: string): void {
  const repositoryRoot = path.resolve(distDirectory, '..', '..', '..');
  if (!existsSync(path.join(repositoryRoot, 'apps/server/src'))) return;
  const record = JSON.parse(readFileSync(path.join(distDirectory, buildRecordFile), 'utf8')) as {
    sources?: unknown;
  };
  if (record.sources !== sourcesDigest(repositoryRoot)) throw new StaleBuildError();
}
