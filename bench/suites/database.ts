import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { argon2VerifyRate } from '../lib/argon2-rate.ts';
import { type LoadRequest, measure, runSeconds } from '../lib/load.ts';
import { describeMachine } from '../lib/machine.ts';
import { peerUser } from '../lib/peer-user.ts';
import { recreateDatabase } from '../lib/postgres.ts';
import { type ServerProcess, startServer } from '../lib/processes.ts';
import { directSignIn, startProduct } from '../lib/product.ts';
import { SuiteRecorder } from '../lib/results.ts';
import { productScenarios, type ScenarioName } from '../lib/scenarios.ts';

export type DatabaseKind = 'pglite' | 'postgres';

const ports = { product: 18_080, bare: 18_090, peer: 18_095 } as const;
/** Consumers of the mailing the sign-ins rotate over (each with a Direct and a Last4Ssn link). */
const populationSize = 2000;
const scenarioOrder: ScenarioName[] = [
  'accessLookup',
  'identityTokenLookup',
  'identityTokenOpened',
  'directSignIn',
  'refresh',
  'lookupSignIn',
  'passwordSignIn',
];

async function fetchJson(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.text();
}

async function withServer<T>(server: ServerProcess, use: (server: ServerProcess) => Promise<T>): Promise<T> {
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}

/** Better Auth's email sign-in and its session check, on the same kind of database. */
async function measurePeer(recorder: SuiteRecorder, kind: DatabaseKind): Promise<void> {
  const env: Record<string, string> =
    kind === 'postgres'
      ? { BA_DATABASE_URL: await recreateDatabase('bench_better_auth') }
      : { BA_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'entry-bench-better-auth-')) };
  const launch = () =>
    startServer({
      name: `better-auth-${kind}`,
      script: 'bench/servers/better-auth.ts',
      env: { ...env, PORT: String(ports.peer) },
      port: ports.peer,
      readyPath: '/api/auth/ok',
    });
  // Started twice, like the product: the first start creates the database and the account, the
  // measured one opens them as a deployed server would.
  await (await launch()).stop();
  const server = await launch();
  await withServer(server, async () => {
    const origin = { origin: server.baseUrl };
    const signIn: LoadRequest = {
      method: 'POST',
      path: '/api/auth/sign-in/email',
      headers: origin,
      body: { email: peerUser.email, password: peerUser.password },
    };
    const response = await fetch(`${server.baseUrl}${signIn.path}`, {
      method: 'POST',
      headers: { ...origin, 'content-type': 'application/json' },
      body: JSON.stringify(signIn.body),
    });
    const cookie = response.headers
      .getSetCookie()
      .map((value) => value.split(';')[0])
      .join('; ');
    if (!response.ok || cookie === '') throw new Error(`Better Auth sign-in answered ${response.status}`);
    recorder.record('peer.signIn', await measure(server.baseUrl, signIn, [server.pid]));
    recorder.record(
      'peer.sessionCheck',
      await measure(server.baseUrl, { method: 'GET', path: '/api/auth/get-session', headers: { cookie } }, [
        server.pid,
      ]),
    );
  });
}

/**
 * One database kind: the ceilings (bare Fastify with the product's JSON, raw argon2id), every
 * product scenario, and the peer's sign-in and session check, one server at a time.
 */
export async function runDatabaseSuite(kind: DatabaseKind): Promise<void> {
  const recorder = new SuiteRecorder(kind, describeMachine(), runSeconds);
  const databaseUrl = kind === 'postgres' ? await recreateDatabase('bench_entry') : undefined;
  const product = await startProduct({
    name: `product-${kind}`,
    port: ports.product,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    population: populationSize,
  });
  await withServer(product.server, async (server) => {
    const refreshTokens: string[] = [];
    for (let index = 0; index < 48; index += 1) {
      refreshTokens.push((await directSignIn(server.baseUrl, product.demo)).refreshToken);
    }
    const scenarios = productScenarios(product.demo, refreshTokens, product.population);
    const bare = await startServer({
      name: 'bare-fastify',
      script: 'bench/servers/bare-fastify.ts',
      env: {
        PORT: String(ports.bare),
        ACCESS_JSON: await fetchJson(`${server.baseUrl}${scenarios.accessLookup.path}`),
        TOKEN_JSON: await fetchJson(`${server.baseUrl}${scenarios.identityTokenLookup.path}`),
      },
      port: ports.bare,
      readyPath: scenarios.accessLookup.path,
    });
    await withServer(bare, async () => {
      recorder.record('ceiling.accessLookup', await measure(bare.baseUrl, scenarios.accessLookup));
      recorder.record(
        'ceiling.identityTokenLookup',
        await measure(bare.baseUrl, scenarios.identityTokenLookup),
      );
    });
    for (const name of scenarioOrder) {
      if (name !== 'passwordSignIn') {
        recorder.record(`product.${name}`, await measure(server.baseUrl, scenarios[name], [server.pid]));
        continue;
      }
      // The raw rate swings with the machine's other load from one run to the next: measured right
      // before and right after the sign-in, and the higher one kept, so the ratio is not flattered.
      const before = await argon2VerifyRate(2, runSeconds);
      recorder.record(`product.${name}`, await measure(server.baseUrl, scenarios[name], [server.pid]));
      recorder.record('ceiling.argon2VerifyRate', Math.max(before, await argon2VerifyRate(2, runSeconds)));
    }
  });
  await measurePeer(recorder, kind);
  await recorder.save();
}
