import type { AuditPage, AuditRowView, AuthTokenResult } from '@entry/domain';
import { parse } from 'csv-parse/sync';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../src/services/audit.ts';
import { auditEvents, createConsumer, createTenant } from './consumer-fixtures.ts';
import { call, databaseLabel, signInAdmin, startTestServer, type TestServer } from './helpers/server.ts';

describe(`console: the audit log (${databaseLabel})`, () => {
  let server: TestServer;
  let admin: AuthTokenResult;
  let tenant: { id: number };
  let consumer: { id: number; consumerId: string };
  /** The rows written for the tenant, oldest first. */
  const written: { entry: AuditEntry; at: Date }[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    admin = await signInAdmin(server);
    tenant = await createTenant(server);
    consumer = await createConsumer(server, { tenantId: tenant.id });
    const entries: AuditEntry[] = [
      { event: 'consumer.sign-in', outcome: 'success', actor: `consumer:${consumer.id}`, ip: '198.51.100.7' },
      { event: 'consumer.sign-in', outcome: 'failure', actor: `consumer:${consumer.id}`, ip: '198.51.100.8' },
      { event: 'customer.sign-in', outcome: 'success', actor: 'customer:77', ip: '198.51.100.7' },
      { event: 'customer.sign-in', outcome: 'locked', actor: 'customer:77', ip: '198.51.100.9' },
      { event: 'consumer.link.opened', outcome: 'success', actor: 'consumer:999999', ip: '198.51.100.7' },
      { event: 'launch.customer', outcome: 'success', actor: 'admin:5', ip: '203.0.113.1' },
      { event: 'consumer.sign-in', outcome: 'success', actor: `consumer:${consumer.id}`, ip: '198.51.100.7' },
    ];
    for (const entry of entries) {
      server.clock.advance(1000);
      await server.ctx.audit.record({ ...entry, tenantId: tenant.id });
      written.push({ entry, at: server.clock.now() });
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  const search = (query: Record<string, string | number>) =>
    call<AuditPage>(
      server.baseUrl,
      'GET',
      `/api/console/v1/audit?${new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]))}`,
      { token: admin.accessToken },
    );
  const ofTenant = async (query: Record<string, string | number> = {}) => {
    const page = await search({ customerId: tenant.id, ...query });
    expect(page.status).toBe(200);
    return page.body.rows;
  };
  const eventsOf = (rows: AuditRowView[]) => rows.map((row) => `${row.event} ${row.outcome}`);

  it("answers an organization's rows newest first, each with its details", async () => {
    const rows = await ofTenant();
    expect(rows).toHaveLength(7);
    expect(rows[0]).toMatchObject({
      event: 'consumer.sign-in',
      outcome: 'success',
      actor: `consumer:${consumer.id}`,
      customerId: tenant.id,
      ip: '198.51.100.7',
      at: written[6]?.at.toISOString(),
      detail: {},
    });
    expect(rows.map((row) => row.at)).toEqual(written.map(({ at }) => at.toISOString()).reverse());
  });

  it('narrows by each filter', async () => {
    expect(await ofTenant({ consumerId: consumer.consumerId })).toHaveLength(3);
    expect(eventsOf(await ofTenant({ actor: 'customer:77' }))).toEqual([
      'customer.sign-in locked',
      'customer.sign-in success',
    ]);
    expect(await ofTenant({ ip: '198.51.100.7' })).toHaveLength(4);
    expect(await ofTenant({ event: 'customer.sign-in' })).toHaveLength(2);
    expect(eventsOf(await ofTenant({ outcome: 'failure' }))).toEqual(['consumer.sign-in failure']);
    const between = await ofTenant({
      from: written[1]?.at.toISOString() ?? '',
      to: written[3]?.at.toISOString() ?? '',
    });
    expect(between.map((row) => row.at)).toEqual([
      written[2]?.at.toISOString(),
      written[1]?.at.toISOString(),
    ]);
    expect(await ofTenant({ consumerId: consumer.consumerId, ip: '198.51.100.8' })).toHaveLength(1);
    expect(await ofTenant({ consumerId: 'no-such-consumer' })).toEqual([]);
    const otherTenant = await createTenant(server);
    expect((await search({ customerId: otherTenant.id })).body.rows).toEqual([]);
  });

  it('pages by cursor without repeats or gaps while rows are added', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await search({ customerId: tenant.id, limit: 3, ...(cursor === null ? {} : { cursor }) });
      expect(page.status).toBe(200);
      seen.push(...page.body.rows.map((row) => row.id));
      cursor = page.body.nextCursor;
      pages += 1;
      // Newer rows arrive between pages: they belong before the first page, never inside the walk.
      server.clock.advance(1000);
      await server.ctx.audit.record({ event: 'customer.sign-in', outcome: 'success', tenantId: tenant.id });
    } while (cursor !== null);
    expect(pages).toBe(3);
    const firstSeven = (await ofTenant({ limit: 100 })).slice(-7).map((row) => row.id);
    expect(seen).toEqual(firstSeven);
  });

  it('refuses a cursor it did not make, and a consumer id without its organization', async () => {
    expect((await search({ cursor: 'bm90LWEtY3Vyc29y' })).body).toMatchObject({ errorCode: 'InvalidValue' });
    const noTenant = await search({ consumerId: consumer.consumerId });
    expect(noTenant.status).toBe(400);
    expect(noTenant.body).toMatchObject({ errorCode: 'InvalidValue' });
    expect((await search({ outcome: 'maybe' })).status).toBe(400);
  });

  it('exports the filtered rows as CSV and as JSON lines, oldest first, and audits the export', async () => {
    const exportOf = (format: string) =>
      fetch(
        `${server.baseUrl}/api/console/v1/audit/export?customerId=${tenant.id}&consumerId=${consumer.consumerId}&format=${format}`,
        { headers: { authorization: `Bearer ${admin.accessToken}` } },
      );
    const asCsv = await exportOf('csv');
    expect(asCsv.status).toBe(200);
    expect(asCsv.headers.get('content-type')).toContain('text/csv');
    const records = parse(await asCsv.text(), { columns: true }) as Record<string, string>[];
    expect(records.map((record) => `${record.event} ${record.outcome} ${record.ip}`)).toEqual([
      'consumer.sign-in success 198.51.100.7',
      'consumer.sign-in failure 198.51.100.8',
      'consumer.sign-in success 198.51.100.7',
    ]);
    const asLines = await exportOf('jsonl');
    expect(asLines.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await asLines.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { actor: string; tenantId: number });
    expect(lines).toHaveLength(3);
    expect(
      lines.every((line) => line.actor === `consumer:${consumer.id}` && line.tenantId === tenant.id),
    ).toBe(true);
    const exports = await auditEvents(server, 'operator.audit.export');
    expect(exports.map((row) => row.detail)).toEqual([
      expect.objectContaining({ format: 'csv', rows: 3, consumerId: consumer.consumerId }),
      expect.objectContaining({ format: 'jsonl', rows: 3 }),
    ]);
    expect(exports[0]?.actor).toBe(decodeJwt(admin.accessToken).sub);
  });
});
