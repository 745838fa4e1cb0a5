import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, databaseLabel, startTestServer, type TestServer, testDatabaseUrl } from './helpers/server.ts';
import { startSmtpServer } from './helpers/smtp.ts';

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the server sends its spans as OTLP/HTTP JSON: an
 * in-process receiver stands in for the collector and reads what an operator's backend would.
 */

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string } }[];
}

interface TraceExport {
  resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[];
}

const redisUrl = process.env.TEST_REDIS_URL || undefined;

/** A collector's OTLP/HTTP endpoint for traces, keeping every span it is sent. */
async function startTraceReceiver(): Promise<{ url: string; spans: ExportedSpan[]; server: Server }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as TraceExport;
        for (const resource of body.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver has no port');
  return { url: `http://127.0.0.1:${address.port}`, spans, server };
}

describe(`traces through OTLP/HTTP (${databaseLabel})`, () => {
  let receiver: Awaited<ReturnType<typeof startTraceReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;

  beforeAll(async () => {
    receiver = await startTraceReceiver();
    smtp = await startSmtpServer();
    server = await startTestServer({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        SMTP_URL: smtp.url,
        ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }),
      },
    });
  });
  afterAll(async () => {
    receiver?.server.close();
    await smtp?.close();
  });

  it("continues the caller's trace with a span for the sign-in and children for its dependencies", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const signedIn = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password: server.demo.admin.password },
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(signedIn.status).toBe(200);
    const reset = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/reset', {
      body: { username: server.demo.admin.username },
    });
    expect(reset.status).toBe(204);
    await smtp.waitForMail(() => true);
    // Closing sends the spans still waiting in the batch.
    await server.close();

    const trace = receiver.spans.filter((span) => span.traceId === traceId);
    const request = trace.find((span) => span.name === 'request');
    expect(request?.parentSpanId).toBe(callerSpanId);
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const withinRequest = (span: ExportedSpan) => {
      for (let parent = span.parentSpanId; parent !== undefined; parent = byId.get(parent)?.parentSpanId)
        if (parent === request?.spanId) return true;
      return false;
    };
    const children = new Set(trace.filter(withinRequest).map((span) => span.name));
    expect(children).toContain('argon2 verify');
    if (testDatabaseUrl !== undefined) expect(children).toContain('pg.query');
    if (redisUrl !== undefined) expect(children).toContain('redis MULTI');
    expect(receiver.spans.map((span) => span.name)).toContain('smtp send');
    // Statements are sent as their parameterised text, never with the values.
    const statements = trace.flatMap((span) =>
      (span.attributes ?? []).filter((attribute) => attribute.key === 'db.query.text'),
    );
    for (const statement of statements)
      expect(statement.value.stringValue).not.toContain(server.demo.admin.password);
  });
});
