import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from './processes.ts';

/**
 * Consumers and letter links of a mailing, made with the operator CLI the way an operations team
 * makes them, so sign-ins spread over many tokens as on a mailing day instead of all updating one
 * token's row.
 */
export interface Population {
  directTokens: string[];
  last4SsnTokens: string[];
  last4Ssn: string;
}

const last4Ssn = '1234';

async function runCli(args: string[], env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0)
    throw new Error(`operator CLI ${args.slice(0, 2).join(' ')} exited with ${code}: ${stderr}`);
}

function parseCsv(text: string): Record<string, string>[] {
  const [header = '', ...lines] = text.trim().split('\n');
  const names = header.split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(names.map((name, index) => [name, cells[index] ?? '']));
  });
}

/** `count` consumers of the tenant, each with a Direct link and a Last4Ssn link of mailing `bench`. */
export async function createPopulation(
  count: number,
  subdomain: string,
  workDir: string,
  env: Record<string, string>,
): Promise<Population> {
  const ids = Array.from({ length: count }, (_, index) => `bench-${index + 1}`);
  const consumersFile = path.join(workDir, 'consumers.csv');
  await writeFile(
    consumersFile,
    [
      'consumerId,name,email,last4Ssn,postalCode,dateOfBirth',
      ...ids.map((id) => `${id},Bench Consumer,${id}@example.com,${last4Ssn},90210,1980-04-15`),
    ].join('\n'),
  );
  const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const linksFile = path.join(workDir, 'links.csv');
  await writeFile(
    linksFile,
    [
      'consumerId,signInType,target,targetId,expiresAt,paymentAmount,schedulePaymentAmount,scheduleDownPayment,scheduleInterval',
      ...ids.flatMap((id) => [`${id},Direct,,,${expiresAt},100,,,`, `${id},Last4Ssn,,,${expiresAt},100,,,`]),
    ].join('\n'),
  );
  const outFile = path.join(workDir, 'links-out.csv');
  await runCli(['consumers', 'import', '--tenant', subdomain, '--file', consumersFile], env);
  await runCli(
    ['links', 'issue', '--tenant', subdomain, '--file', linksFile, '--out', outFile, '--mailing', 'bench'],
    env,
  );
  const rows = parseCsv(await readFile(outFile, 'utf8'));
  const tokensOf = (signInType: string) =>
    rows.filter((row) => row.signInType === signInType).map((row) => row.token ?? '');
  return { directTokens: tokensOf('Direct'), last4SsnTokens: tokensOf('Last4Ssn'), last4Ssn };
}
