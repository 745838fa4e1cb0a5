import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Writes a script test's tree of files (repository path -> text) under a new temporary folder, its root. */
export function writeFixtureTree(prefix: string, files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}
