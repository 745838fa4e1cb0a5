import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFailureMessage } from '../src/cli/errors.ts';
import { loadConfig } from '../src/config.ts';
import { ConfigError } from '../src/config-values.ts';
import { budgetKeyOfAddress } from '../src/services/client-addresses.ts';
import {
  callFrom,
  databaseLabel,
  loopbackAddress,
  startTestServer,
  type TestServer,
} from './helpers/server.ts';

describe('the address a per-address budget counts', () => {
  it.each([
    ['an IPv4 address', '203.0.113.9', '203.0.113.9'],
    ['an IPv6 address', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['another address of the same /64, compressed', '2001:DB8:1:2::ff', '2001:db8:1:2::/64'],
    [
      'an address written in full with leading zeros',
      '2001:0db8:0001:0002:0000:0000:0000:0001',
      '2001:db8:1:2::/64',
    ],
    ['an address with a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['an IPv4-mapped IPv6 address', '::ffff:203.0.113.9', '203.0.113.9'],
    ['an IPv4-mapped IPv6 address in hexadecimal', '::ffff:cb00:7109', '203.0.113.9'],
    ['the IPv6 loopback', '::1', '0:0:0:0::/64'],
  ])('counts %s as %s', (_label, address, key) => {
    expect(budgetKeyOfAddress(address)).toBe(key);
  });
});

describe('TRUST_PROXY', () => {
  it('refuses true, which would let every client choose its address, with one line asking for the proxies or a hop count', () => {
    let thrown: unknown;
    try {
      loadConfig({ TRUST_PROXY: 'true' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const message = startFailureMessage(thrown);
    expect(message).toMatch(/^Invalid configuration: TRUST_PROXY must list the proxies' addresses or CIDRs/);
    expect(message).toContain('hop count');
    expect(message).not.toContain('\n');
  });

  it('takes a hop count, a list of addresses and CIDRs, or nothing', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 2001:db8::/32, 127.0.0.1, loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '2001:db8::/32',
      '127.0.0.1',
      'loopback',
    ]);
  });

  it.each(['yes', '10.0.0.0/33', 'proxy.internal', '1.5'])('refuses %s, naming it', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
      `Invalid configuration: TRUST_PROXY has "${value}", which is not an address, a CIDR or a hop count`,
    );
  });
});

const limit = 5;
const trustedProxy = '127.0.0.1';
const untrustedPeer = loopbackAddress(7);

describe(`forwarding headers count only from a trusted proxy (${databaseLabel})`, () => {
  let webDist: string;
  let server: TestServer;
  beforeAll(async () => {
    webDist = mkdtempSync(path.join(tmpdir(), 'entry-addresses-dist-'));
    writeFileSync(
      path.join(webDist, 'index.html'),
      '<!doctype html><html lang="en"><head><title>Account Access</title></head><body></body></html>',
    );
    server = await startTestServer({
      webDistDir: webDist,
      env: { TRUST_PROXY: trustedProxy, RATE_LIMIT_FAILURES: String(limit) },
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(webDist, { recursive: true, force: true });
  });
  beforeEach(() => {
    // Both counting windows lie behind the clock afterwards, so each test starts from zero.
    server.clock.advanceMinutes(20);
  });

  const wrongSignIn = (from: string, forwardedFor?: string) =>
    callFrom(from, server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username: 'nobody-at-all', password: 'not the password' },
      ...(forwardedFor === undefined ? {} : { headers: { 'x-forwarded-for': forwardedFor } }),
    });

  it('counts the client the trusted proxy names, each client on its own budget', async () => {
    for (let index = 0; index < limit; index += 1) {
      expect((await wrongSignIn(trustedProxy, '203.0.113.7')).status).toBe(401);
    }
    expect((await wrongSignIn(trustedProxy, '203.0.113.7')).status).toBe(429);
    expect((await wrongSignIn(trustedProxy, '203.0.113.8')).status).toBe(401);
    // A client's own header before the proxy's entry changes nothing: the proxy's entry is the client.
    expect((await wrongSignIn(trustedProxy, '198.51.100.1, 203.0.113.7')).status).toBe(429);
  });

  it('ignores the forwarded addresses of a peer that is not a trusted proxy: 40 made-up addresses still get the 429', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 40; index += 1) {
      statuses.push((await wrongSignIn(untrustedPeer, `198.51.100.${index + 1}`)).status);
    }
    expect(statuses.slice(0, limit)).toEqual(Array(limit).fill(401));
    expect(statuses.slice(limit)).toEqual(Array(40 - limit).fill(429));
  });

  it('counts two addresses of one IPv6 /64 on one budget, another /64 on its own', async () => {
    for (let index = 0; index < limit; index += 1) {
      const address = index % 2 === 0 ? '2001:db8:1:2::1' : `2001:db8:1:2:${index}::${index + 7}`;
      expect((await wrongSignIn(trustedProxy, address)).status).toBe(401);
    }
    expect((await wrongSignIn(trustedProxy, '2001:db8:1:2:ffff:ffff:ffff:fffe')).status).toBe(429);
    expect((await wrongSignIn(trustedProxy, '2001:db8:1:3::1')).status).toBe(401);
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', async () => {
    for (let index = 0; index < limit; index += 1) {
      expect(
        (await wrongSignIn(trustedProxy, index % 2 === 0 ? '::ffff:192.0.2.5' : '192.0.2.5')).status,
      ).toBe(401);
    }
    expect((await wrongSignIn(trustedProxy, '192.0.2.5')).status).toBe(429);
  });

  /** The page's title for a request from `from` to the apps host, with `X-Forwarded-Host: forwardedHost`. */
  const titleWithForwardedHost = (from: string, forwardedHost: string) =>
    new Promise<string | undefined>((resolve, reject) => {
      request(
        new URL('/', server.baseUrl),
        {
          localAddress: from,
          agent: false,
          headers: { host: 'apps.localhost:8080', 'x-forwarded-host': forwardedHost },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve(/<title>([^<]*)<\/title>/.exec(Buffer.concat(chunks).toString('utf8'))?.[1]),
          );
        },
      )
        .on('error', reject)
        .end();
    });

  it("lets only a trusted proxy's X-Forwarded-Host choose the organization a page names", async () => {
    const name = server.demo.tenant.customerName;
    expect(await titleWithForwardedHost(trustedProxy, 'sender.localhost:8080')).toBe(name);
    expect(await titleWithForwardedHost(untrustedPeer, 'sender.localhost:8080')).toBe('Account Access');
  });
});
