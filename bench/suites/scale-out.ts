import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { inTurns, measure, medianRun, runSeconds } from '../lib/load.ts';
import { describeMachine } from '../lib/machine.ts';
import { recreateDatabase } from '../lib/postgres.ts';
import { newSecrets, type RunningProduct, startProduct } from '../lib/product.ts';
import { SuiteRecorder } from '../lib/results.ts';
import { productScenarios, refreshTokensFrom } from '../lib/scenarios.ts';

const ports = { redis: 16_390, nginx: 18_100, first: 18_081, second: 18_082 } as const;

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  if (!(await Promise.race([exited.then(() => true), delay(10_000).then(() => false)]))) {
    child.kill('SIGKILL');
    await exited;
  }
}

async function waitForPort(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await delay(200);
  }
  throw new Error(`${url} did not answer`);
}

/** A Redis of the benchmark's own, in memory only, so nobody else's keys are touched. */
function startRedis(): ChildProcess {
  return spawn(
    'redis-server',
    ['--port', String(ports.redis), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
}

/** nginx (Debian's package) with a configuration of our own: round robin over the two instances. */
async function startNginx(): Promise<ChildProcess> {
  const prefix = await mkdtemp(path.join(tmpdir(), 'entry-bench-nginx-'));
  const config = `
worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream entry {
    server 127.0.0.1:${ports.first};
    server 127.0.0.1:${ports.second};
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${ports.nginx};
    # nginx closes a client's connection after 1,000 requests by default; autocannon's sixteen
    # connections make that many in seconds, and a refresh sent as one closes is lost with the token
    # it carried: the chains ran dry in the third run.
    keepalive_requests 10000000;
    location / {
      proxy_pass http://entry;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`;
  const configFile = path.join(prefix, 'nginx.conf');
  await writeFile(configFile, config);
  const nginx = spawn('nginx', ['-c', configFile, '-p', prefix], { stdio: 'ignore' });
  await waitForPort(`http://127.0.0.1:${ports.nginx}/`);
  return nginx;
}

/**
 * Two instances on one PostgreSQL and one Redis behind nginx, against one instance alone, for the
 * lookups and refresh: the combined rate a second instance adds on this machine.
 */
export async function runScaleOutSuite(): Promise<void> {
  const recorder = new SuiteRecorder('scale-out', describeMachine(), runSeconds);
  const databaseUrl = await recreateDatabase('bench_entry_scale');
  const redis = startRedis();
  const started: RunningProduct[] = [];
  let nginx: ChildProcess | undefined;
  try {
    const secrets = newSecrets();
    const shared = {
      databaseUrl,
      redisUrl: `redis://127.0.0.1:${ports.redis}`,
      secrets,
      env: { TRUST_PROXY: '127.0.0.1' },
    };
    const first = await startProduct({ ...shared, name: 'product-scale-1', port: ports.first });
    started.push(first);
    const second = await startProduct({
      ...shared,
      name: 'product-scale-2',
      port: ports.second,
      demo: first.demo,
    });
    started.push(second);
    const pids = [first.server.pid, second.server.pid];

    nginx = await startNginx();
    const balancer = `http://127.0.0.1:${ports.nginx}`;
    const single = productScenarios(first.demo, await refreshTokensFrom(first.server.baseUrl, first.demo));
    const pair = productScenarios(first.demo, await refreshTokensFrom(balancer, first.demo));
    // One instance and the pair take turns, run by run, so the machine's load falls on both alike.
    for (const name of ['accessLookup', 'identityTokenLookup', 'refresh'] as const) {
      const [alone, behindNginx] = await inTurns(
        () => measure(first.server.baseUrl, single[name], [first.server.pid]),
        () => measure(balancer, pair[name], pids),
      );
      recorder.record(`single.${name}`, medianRun(alone));
      recorder.record(`pair.${name}`, medianRun(behindNginx));
    }
  } finally {
    if (nginx !== undefined) await stopProcess(nginx, 'SIGQUIT');
    for (const product of started) await product.server.stop();
    await stopProcess(redis, 'SIGTERM');
  }
  await recorder.save();
}
