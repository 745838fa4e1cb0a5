import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { argon2VerifyRate } from '../lib/argon2-rate.ts';
import {
  inTurns,
  type LoadRequest,
  measure,
  measureRuns,
  median,
  medianRun,
  runSeconds,
} from '../lib/load.ts';
import { describeMachine } from '../lib/machine.ts';
import { startOtlpSink } from '../lib/otlp-sink.ts';
import { peerUser } from '../lib/peer-user.ts';
import { recreateDatabase } from '../lib/postgres.ts';
import { type ServerProcess, startServer } from '../lib/processes.ts';
import { newSecrets, type ProductSecrets, type RunningProduct, startProduct } from '../lib/product.ts';
import { SuiteRecorder } from '../lib/results.ts';
import { productScenarios, refreshTokensFrom, type ScenarioName } from '../lib/scenarios.ts';

export type DatabaseKind = 'pglite' | 'postgres';

const ports = { product: 18_080, traced: 18_081, bare: 18_090, peer: 18_095 } as const;
/**
 * Consumers of the mailing the sign-ins rotate over (each with a Direct and a Last4Ssn link): enough
 * that no consumer's lookups pass the five code mails of an hour, as on a mailing day.
 */
const populationSize = 40_000;
/**
 * Measured one after another, between the lookups (in turns with their ceilings) and the password
 * sign-in (in turns with the raw argon2id rate).
 */
const scenarioOrder: ScenarioName[] = ['identityTokenOpened', 'directSignIn', 'refresh', 'lookupSignIn'];

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
    recorder.record('peer.signIn', await measureRuns(server.baseUrl, signIn, [server.pid]));
    recorder.record(
      'peer.sessionCheck',
      await measureRuns(
        server.baseUrl,
        { method: 'GET', path: '/api/auth/get-session', headers: { cookie } },
        [server.pid],
      ),
    );
  });
}

/**
 * What traces cost: one instance sending every span to a collector and one without, on the same
 * database, taking turns on the direct sign-in (a session written, tokens signed), each run's peak
 * RSS beside its rate.
 */
async function measureTracing(
  recorder: SuiteRecorder,
  databaseUrl: string,
  measured: RunningProduct,
  secrets: ProductSecrets,
): Promise<void> {
  const sink = await startOtlpSink();
  const shared = { databaseUrl, demo: measured.demo, secrets };
  const plain = await startProduct({ ...shared, name: 'product-untraced', port: ports.product });
  try {
    const traced = await startProduct({
      ...shared,
      name: 'product-traced',
      port: ports.traced,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
    });
    await withServer(traced.server, async () => {
      const { directSignIn } = productScenarios(measured.demo, [], measured.population);
      const [untracedRuns, tracedRuns] = await inTurns(
        () => measure(plain.server.baseUrl, directSignIn, [plain.server.pid]),
        () => measure(traced.server.baseUrl, directSignIn, [traced.server.pid]),
      );
      recorder.record('tracing.untraced', medianRun(untracedRuns));
      recorder.record('tracing.traced', medianRun(tracedRuns));
      recorder.record('tracing.exportedBytes', sink.receivedBytes());
    });
  } finally {
    await plain.server.stop();
    await sink.stop();
  }
}

/**
 * One database kind: the ceilings (bare Fastify with the product's JSON, raw argon2id), every
 * product scenario, and the peer's sign-in and session check, one server at a time.
 */
export async function runDatabaseSuite(kind: DatabaseKind): Promise<void> {
  const recorder = new SuiteRecorder(kind, describeMachine(), runSeconds);
  const databaseUrl = kind === 'postgres' ? await recreateDatabase('bench_entry') : undefined;
  const secrets = newSecrets();
  const product = await startProduct({
    name: `product-${kind}`,
    port: ports.product,
    secrets,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    population: populationSize,
  });
  await withServer(product.server, async (server) => {
    const scenarios = productScenarios(
      product.demo,
      await refreshTokensFrom(server.baseUrl, product.demo),
      product.population,
    );
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
    // Each lookup takes turns with its ceiling, run by run, so the ratio compares like with like.
    await withServer(bare, async () => {
      const [ceilingAccess, access, ceilingToken, token] = await inTurns(
        () => measure(bare.baseUrl, scenarios.accessLookup),
        () => measure(server.baseUrl, scenarios.accessLookup, [server.pid]),
        () => measure(bare.baseUrl, scenarios.identityTokenLookup),
        () => measure(server.baseUrl, scenarios.identityTokenLookup, [server.pid]),
      );
      recorder.record('ceiling.accessLookup', medianRun(ceilingAccess));
      recorder.record('ceiling.identityTokenLookup', medianRun(ceilingToken));
      recorder.record('product.accessLookup', medianRun(access));
      recorder.record('product.identityTokenLookup', medianRun(token));
    });
    for (const name of scenarioOrder) {
      recorder.record(`product.${name}`, await measureRuns(server.baseUrl, scenarios[name], [server.pid]));
    }
    // The raw rate swings with the machine's other load as much as the sign-in does: the two take
    // turns, and each is the median of its runs.
    const [signIns, rawRates] = await inTurns(
      () => measure(server.baseUrl, scenarios.passwordSignIn, [server.pid]),
      () => argon2VerifyRate(2, runSeconds),
    );
    recorder.record('product.passwordSignIn', medianRun(signIns));
    recorder.record('ceiling.argon2VerifyRate', median(rawRates));
    recorder.record('ceiling.argon2VerifyRates', rawRates.join(', '));
  });
  // Traces are measured on PostgreSQL, the database of the deployments that would send them.
  if (databaseUrl !== undefined) await measureTracing(recorder, databaseUrl, product, secrets);
  await measurePeer(recorder, kind);
  await recorder.save();
}
