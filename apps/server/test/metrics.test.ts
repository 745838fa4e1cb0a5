import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mailer } from '../src/services/mail-transports.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const metricsToken = 'a metrics token for this test';

/** Sends nothing while `refusing` is set, as an SMTP server that turns mail away. */
class RefusingMailer implements Mailer {
  refusing = true;
  async send(): Promise<void> {
    if (this.refusing) throw new Error('550 mailbox unavailable');
  }
}

async function scrape(server: TestServer, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}/api/metrics`, { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The value of one sample line, by its name and labels exactly as Prometheus' text format writes them. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe(`metrics and request tracing (${databaseLabel})`, () => {
  let server: TestServer;
  const mailer = new RefusingMailer();
  const logLines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({
      env: { TRUST_PROXY: '127.0.0.1', METRICS_TOKEN: metricsToken, LOG_LEVEL: 'info' },
      mailer,
      logLines,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const signIn = (password: string) =>
    call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password },
    });

  it('counts requests by route and status, and sign-in outcomes by reason, where a scraper reads them', async () => {
    const before = await scrape(server);
    expect(before.status).toBe(200);
    expect(before.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const route = 'entry_http_requests_total{method="POST",route="/api/auth/v1/admin/sign-in"';
    const wrongPasswords =
      'entry_audit_events_total{event="admin.sign-in",outcome="failure",reason="wrong password"}';

    expect((await signIn(server.demo.admin.password)).status).toBe(200);
    expect((await signIn('not the password at all')).status).toBe(401);
    expect((await signIn('not the password either')).status).toBe(401);

    const after = await scrape(server);
    expect(sample(after.text, `${route},status="200"}`)).toBe(
      (sample(before.text, `${route},status="200"}`) ?? 0) + 1,
    );
    expect(sample(after.text, `${route},status="401"}`)).toBe(
      (sample(before.text, `${route},status="401"}`) ?? 0) + 2,
    );
    expect(sample(after.text, wrongPasswords)).toBe((sample(before.text, wrongPasswords) ?? 0) + 2);
    expect(
      sample(after.text, 'entry_audit_events_total{event="admin.sign-in",outcome="success",reason=""}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(
        after.text,
        `entry_http_request_duration_seconds_count${route.slice('entry_http_requests_total'.length)},status="401"}`,
      ),
    ).toBe(sample(after.text, `${route},status="401"}`));
    expect(sample(after.text, 'entry_dependency_unavailable{dependency="database"}')).toBe(0);
    expect(sample(after.text, 'entry_database_waiting')).toBeGreaterThanOrEqual(0);
    expect(after.text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('shows the outbox waiting and the mails its server turned away', async () => {
    mailer.refusing = true;
    const reset = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/reset', {
      body: { username: server.demo.admin.username },
    });
    expect(reset.status).toBe(204);
    // The reset's mail is written after the answer, so that a known user's answer takes no longer.
    await expect
      .poll(async () => sample((await scrape(server)).text, 'entry_mail_send_failures_total'))
      .toBeGreaterThanOrEqual(1);
    server.clock.advanceMinutes(3);
    const refused = await scrape(server);
    expect(sample(refused.text, 'entry_outbox_unsent')).toBeGreaterThanOrEqual(1);
    expect(sample(refused.text, 'entry_outbox_oldest_unsent_seconds')).toBeGreaterThanOrEqual(180);

    mailer.refusing = false;
    await server.ctx.mail.deliverPending();
    const sent = await scrape(server);
    expect(sample(sent.text, 'entry_outbox_unsent')).toBe(0);
    expect(sample(sent.text, 'entry_outbox_oldest_unsent_seconds')).toBe(0);
  });

  it('answers a client other than loopback only with the metrics token', async () => {
    const remote = { 'x-forwarded-for': '203.0.113.9' };
    const refused = await scrape(server, remote);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ errorCode: 'NotPermitted' });
    expect((await scrape(server, { ...remote, authorization: 'Bearer not the token at all' })).status).toBe(
      403,
    );
    const allowed = await scrape(server, { ...remote, authorization: `Bearer ${metricsToken}` });
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('entry_http_requests_total');
  });

  it.each<Record<string, string>>([
    { 'x-forwarded-for': '127.0.0.1' },
    { forwarded: 'for=127.0.0.1' },
    { 'x-forwarded-host': 'metrics.example.com' },
    { 'x-forwarded-proto': 'https' },
    { 'x-real-ip': '127.0.0.1' },
  ])('refuses a loopback request that a proxy forwarded (%o) without the token', async (forwarding) => {
    const refused = await scrape(server, forwarding);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ errorCode: 'NotPermitted' });
    expect((await scrape(server, { ...forwarding, authorization: `Bearer ${metricsToken}` })).status).toBe(
      200,
    );
    expect((await scrape(server)).status).toBe(200);
  });

  it("keeps a trusted proxy's request id and logs the request's W3C trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await fetch(`${server.baseUrl}/api/health`, {
      headers: { 'x-request-id': 'proxy-req-42', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(response.headers.get('x-request-id')).toBe('proxy-req-42');
    await fetch(`${server.baseUrl}/api/auth/v1/admin/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: JSON.stringify({ username: 'nobody', password: 'not a password' }),
    });
    const traced = logLines
      .map((line) => JSON.parse(line) as { traceId?: string; parentSpanId?: string; msg: string })
      .filter((entry) => entry.traceId === traceId);
    expect(traced.length).toBeGreaterThanOrEqual(1);
    expect(traced[0]?.parentSpanId).toBe('00f067aa0ba902b7');
  });
});

describe(`request ids without a trusted proxy (${databaseLabel})`, () => {
  it("makes its own request id rather than keep a client's", async () => {
    const server = await startTestServer();
    try {
      const response = await fetch(`${server.baseUrl}/api/health`, {
        headers: { 'x-request-id': 'chosen-by-client' },
      });
      expect(response.headers.get('x-request-id')).not.toBe('chosen-by-client');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await server.close();
    }
  });
});
