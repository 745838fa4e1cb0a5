import { accessResultSchema } from '@entry/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

describe(`access calls (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('finds a tenant by subdomain, with the absolute consumer portal URL as target and its contact', async () => {
    const response = await call(server.baseUrl, 'GET', '/api/auth/v1/access/sender');
    expect(response.status).toBe(200);
    expect(accessResultSchema.parse(response.body)).toEqual({
      subdomain: 'sender',
      target: 'http://sender.localhost:8080/c/',
      customerId: 1001,
      customerName: server.demo.tenant.customerName,
      // The demo's contact, so a trial shows where it appears; no logo.
      contact: {
        phone: '(800) 555-0199',
        email: 'help@sender.example',
        hours: 'Monday to Friday, 8 AM to 6 PM Eastern',
        website: 'https://sender.example',
      },
      defaultLanguage: 'en',
      debtCollector: false,
    });
  });

  it('finds a tenant by customer id', async () => {
    const response = await call(server.baseUrl, 'GET', '/api/auth/v1/access/customer/1001');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ subdomain: 'sender', customerId: 1001 });
  });

  it.each([
    ['an unknown subdomain', '/api/auth/v1/access/nobody', 404, 'ItemNotFound'],
    ['an unknown customer id', '/api/auth/v1/access/customer/999999', 404, 'ItemNotFound'],
    ['a customer id that is not a number', '/api/auth/v1/access/customer/abc', 400, 'InvalidValue'],
    ['a negative customer id', '/api/auth/v1/access/customer/-4', 400, 'InvalidValue'],
  ])('answers %s with the error body', async (_label, urlPath, status, errorCode) => {
    const response = await call(server.baseUrl, 'GET', urlPath);
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ errorCode, errors: expect.any(Array) });
  });

  it('names the field of a bad path parameter', async () => {
    const response = await call(server.baseUrl, 'GET', '/api/auth/v1/access/customer/abc');
    expect(response.body).toMatchObject({ errors: [{ field: 'customerId' }] });
  });
});
