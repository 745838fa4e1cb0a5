import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusals } from '../src/refusals.ts';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}

describe(`the refusal table against the OpenAPI document (${databaseLabel})`, () => {
  let server: TestServer;
  let document: OpenApiDocument;
  beforeAll(async () => {
    server = await startTestServer();
    document = (await (await fetch(`${server.baseUrl}/api/docs/openapi.json`)).json()) as OpenApiDocument;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('holds only what HTTP can answer: each row has a status that at least one operation of /api/docs/openapi.json declares among its responses', () => {
    const declared = new Set(
      Object.values(document.paths).flatMap((operations) =>
        Object.values(operations).flatMap((operation) => Object.keys(operation.responses ?? {})),
      ),
    );
    const undeclared = Object.entries(refusals)
      .filter(([, row]) => !declared.has(String(row.status)))
      .map(([name, row]) => `${name}: ${row.status}`);
    expect(undeclared).toEqual([]);
  });
});
