import { request as httpRequest } from 'node:http';
import { errorBodySchema } from '@entry/domain';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

/**
 * A property-based barrage of bad input on every call the OpenAPI document lists: malformed JSON,
 * wrong types, unknown and oversized fields, odd path and query parameters, odd content types and
 * bearer tokens. Whatever arrives, the answer is never a 5xx, and every 4xx is the error body
 * without a stack trace.
 */

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyFields: string[];
}

interface JsonSchemaLike {
  properties?: Record<string, unknown>;
  anyOf?: JsonSchemaLike[];
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string }[];
        requestBody?: { content?: Record<string, { schema?: JsonSchemaLike }> };
      }
    >
  >;
}

function fieldsOf(schema: JsonSchemaLike | undefined): string[] {
  if (schema === undefined) return [];
  return [...Object.keys(schema.properties ?? {}), ...(schema.anyOf ?? []).flatMap(fieldsOf)];
}

function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      return {
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodyFields: [...new Set(fieldsOf(operation.requestBody?.content?.['application/json']?.schema))],
      };
    }),
  );
}

interface RawResponse {
  status: number;
  contentType: string;
  text: string;
}

/** node:http sends the path exactly as given (fetch would normalise `..` and escapes). */
function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        // Node frames a DELETE's body only when told its length (it sends no chunked body by default).
        headers: {
          ...headers,
          connection: 'close',
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const rawSegments = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '..%2F..',
  'a%2Fb',
  '%20',
  '-1',
  '0',
  '1e309',
  'null',
  'x'.repeat(600),
];

const pathSegment = fc.oneof(
  fc.string({ maxLength: 80 }).map(encodeURIComponent),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
  fc.uuid(),
  fc.integer().map(String),
  fc.constantFrom(...rawSegments),
);

const queryValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('true', 'false', '', '123456', 'TRUE', '1', 'null', 'x'.repeat(2000)),
);

const wrongValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
  fc.constant('y'.repeat(5000)),
);

function bodyArbitrary(fields: string[]) {
  const knownFields =
    fields.length === 0
      ? fc.constant({})
      : fc.record(Object.fromEntries(fields.map((field) => [field, wrongValue])), { requiredKeys: [] });
  return fc.oneof(
    knownFields.map((value) => JSON.stringify(value)),
    fc
      .tuple(
        knownFields,
        fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), wrongValue, { maxKeys: 3 }),
      )
      .map(([known, extra]) => JSON.stringify({ ...extra, ...known })),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 60 }),
    fc.constantFrom('{', '{"a":', '[1,', 'nul', '"\\u12"', '{"__proto__":{"x":1}}', '\u0000', ''),
    fc.constant(JSON.stringify({ [fields[0] ?? 'field']: 'z'.repeat(70 * 1024) })),
    fc.constant(undefined),
  );
}

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  undefined,
);

const bearer = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 40 }).filter((value) => /^[\x21-\x7e]*$/.test(value)),
  fc.constant('eyJhbGciOiJub25lIn0.eyJzaWQiOiJ4In0.'),
);

function requestArbitrary(operation: Operation) {
  return fc.record({
    segments: fc.array(pathSegment, {
      minLength: operation.pathParams.length,
      maxLength: operation.pathParams.length,
    }),
    query: fc.dictionary(
      fc.oneof(
        fc.constantFrom(...operation.queryParams, 'addAction', 'Token', 'extra'),
        fc.string({ maxLength: 8 }),
      ),
      queryValue,
      { maxKeys: 4 },
    ),
    rawQuery: fc.constantFrom('', '', '&&', '=x', '%zz=1', 'a[b]=1'),
    body: bodyArbitrary(operation.bodyFields),
    contentType,
    bearer,
  });
}

function assertAnswer(label: string, response: RawResponse): void {
  expect(response.status, label).toBeLessThan(500);
  if (response.status < 400) return;
  expect(response.contentType, label).toMatch(/^application\/json/);
  const parsed = errorBodySchema.safeParse(JSON.parse(response.text));
  expect(parsed.success, `${label}: ${response.text}`).toBe(true);
  expect(response.text, label).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

describe(`bad input on every call (${databaseLabel})`, () => {
  let server: TestServer;
  let operations: Operation[];
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '100000' } });
    const response = await fetch(`${server.baseUrl}/api/docs/openapi.json`);
    operations = operationsOf((await response.json()) as OpenApiDocument);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the OpenAPI document lists every call of the specification and the added ones', () => {
    expect(operations.length).toBeGreaterThanOrEqual(26);
  });

  it('never answers 5xx, and every 4xx is the error body', async () => {
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(operation), async (input) => {
          let path = operation.path;
          operation.pathParams.forEach((name, index) => {
            path = path.replace(`{${name}}`, input.segments[index] ?? '');
          });
          const query = new URLSearchParams(input.query).toString();
          const search = [query, input.rawQuery].filter((part) => part !== '').join('&');
          const fullPath = search === '' ? path : `${path}?${search}`;
          const headers: Record<string, string> = {};
          if (input.contentType !== undefined) headers['content-type'] = input.contentType;
          if (input.bearer !== undefined) headers.authorization = `Bearer ${input.bearer}`;
          const body = operation.method === 'GET' ? undefined : input.body;
          const response = await send(server.baseUrl, operation.method, fullPath, headers, body);
          assertAnswer(
            `${operation.method} ${fullPath} ${input.contentType} ${body?.slice(0, 200)}`,
            response,
          );
        }),
        { numRuns: 60 },
      );
    }
  });

  it.each([
    '/api/auth/v1/access/%',
    '/api/auth/v1/consumers/token/%E0%A4%A',
    '/api/v1/communication/email/subscription/token/%zz',
  ])('answers a path that cannot be decoded (%s) with the error body', async (path) => {
    const response = await send(server.baseUrl, 'GET', path, {}, undefined);
    expect(response.status).toBe(400);
    expect(errorBodySchema.parse(JSON.parse(response.text)).errorCode).toBe('InvalidValue');
  });

  it.each([
    ['malformed JSON', 'POST', '/api/auth/v1/consumer/sign-in/lookup', '{"customerId":', 'body'],
    [
      'a string customer id',
      'POST',
      '/api/auth/v1/consumer/sign-in/lookup',
      '{"customerId":"1001","subdomain":"sender"}',
      'customerId',
    ],
    [
      'a customer id past the database integer',
      'POST',
      '/api/auth/v1/consumer/sign-in/identity-token',
      '{"token":"x","customerId":3000000000,"subdomain":"sender"}',
      'customerId',
    ],
    [
      'an unknown field',
      'POST',
      '/api/auth/v1/consumer/sign-in/identity-token',
      '{"token":"x","customerId":1001,"subdomain":"sender","admin":true}',
      'admin',
    ],
    ['a NUL character in a path parameter', 'GET', '/api/auth/v1/access/%00', undefined, 'subdomain'],
    [
      'a NUL character in a body field',
      'POST',
      '/api/auth/v1/admin/sign-in',
      '{"username":"a\\u0000","password":"x"}',
      'username',
    ],
    [
      'an oversized field',
      'POST',
      '/api/auth/v1/consumer/sign-in/identity-token',
      `{"token":"${'t'.repeat(65)}","customerId":1001,"subdomain":"sender"}`,
      'token',
    ],
  ])('names the field for %s with 400 InvalidValue', async (_label, method, path, body, field) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    const response = await send(server.baseUrl, method, path, headers, body);
    expect(response.status).toBe(400);
    const parsed = errorBodySchema.parse(JSON.parse(response.text));
    expect(parsed.errorCode).toBe('InvalidValue');
    expect(parsed.errors.map((error) => error.field).join(' ')).toContain(field);
  });
});
