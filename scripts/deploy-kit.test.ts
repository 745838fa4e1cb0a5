import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The deployment kit names only the settings the README's configuration table documents, and
 * `.env.example` names each of them, so the kit cannot drift from the server's configuration.
 */

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** The variables of the README's "Configuration" table: every upper-case name in a row's first cell. */
function documentedVariables(): Set<string> {
  const readme = read('README.md');
  const start = readme.indexOf('## Configuration');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const names = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) =>
      [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] ?? ''),
    );
  return new Set(names);
}

/**
 * The keys of every `environment:` mapping in compose.yaml, with the block that holds it: the
 * top-level key, or the service's name under `services:`.
 */
function composeEnvironments(text: string): { owner: string; key: string }[] {
  const found: { owner: string; key: string }[] = [];
  let topLevel = '';
  let service = '';
  let environmentIndent: number | undefined;
  for (const line of text.split('\n')) {
    const indent = line.search(/\S/);
    if (indent === -1 || line.trimStart().startsWith('#')) continue;
    if (environmentIndent !== undefined && indent > environmentIndent) {
      found.push({
        owner: topLevel === 'services' ? service : topLevel,
        key: line.trim().split(':')[0] ?? '',
      });
      continue;
    }
    environmentIndent = undefined;
    if (indent === 0) topLevel = line.split(':')[0] ?? '';
    if (indent === 2 && topLevel === 'services') service = line.trim().split(':')[0] ?? '';
    if (line.trim() === 'environment:') environmentIndent = indent;
  }
  return found;
}

const documented = documentedVariables();

describe('the deployment kit against the README configuration table', () => {
  it('reads a table of the server settings', () => {
    expect(documented).toContain('DATABASE_URL');
    expect(documented).toContain('KBA_PEPPER_FILE');
    expect(documented.size).toBeGreaterThan(30);
  });

  it('.env.example names every documented variable and no other', () => {
    const named = read('.env.example')
      .split('\n')
      .map((line) => /^#? ?([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(new Set(named)).toEqual(documented);
    expect(named).toHaveLength(new Set(named).size);
  });

  it('compose.yaml sets only documented variables on the instances', () => {
    const instances = composeEnvironments(read('compose.yaml')).filter(({ owner }) => owner !== 'postgres');
    expect(instances.map(({ owner }) => owner)).toContain('x-app');
    expect(instances.filter(({ key }) => !documented.has(key))).toEqual([]);
  });

  it('the systemd unit sets only documented variables', () => {
    const set = [...read('deploy/entry-sign-in.service').matchAll(/^Environment=([A-Z][A-Z0-9_]*)=/gm)].map(
      (match) => match[1],
    );
    expect(set.length).toBeGreaterThan(0);
    expect(set.filter((name) => name === undefined || !documented.has(name))).toEqual([]);
  });

  it('the Dockerfile sets only documented variables', () => {
    const dockerfile = read('Dockerfile').replace(/\\\n/g, ' ');
    const set = [...dockerfile.matchAll(/^ENV (.*)$/gm)].flatMap((match) =>
      [...(match[1] ?? '').matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((name) => name[1] ?? ''),
    );
    expect(set.length).toBeGreaterThan(0);
    expect(set.filter((name) => !documented.has(name))).toEqual([]);
  });
});

describe('the image is built by the install CI checks', () => {
  const install = 'scripts/production-install.sh';

  it('the Dockerfile and the CI check both run the production install script', () => {
    expect(read('Dockerfile')).toMatch(new RegExp(`^RUN bash ${install} `, 'm'));
    expect(read('.ci/run')).toContain('scripts/production-check.ts');
    expect(read('scripts/production-check.ts')).toContain(`'${install}'`);
  });

  it('runs on the official Node 24 slim image, as a user without privileges, with the data directory as a volume', () => {
    const dockerfile = read('Dockerfile');
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1])).toEqual([
      'node:24-slim',
      'node:24-slim',
    ]);
    expect(dockerfile).toMatch(/^USER node$/m);
    const dataDir = /DATA_DIR=(\S+)/.exec(dockerfile)?.[1];
    expect(dockerfile).toContain(`VOLUME ${dataDir}`);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/api\/health/m);
    expect(dockerfile).toContain('"apps/server/dist/main.js"');
  });
});
