import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempFile } from './cli-helpers.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

/** The smallest PNG: one transparent pixel. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const drawing =
  '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"><defs><linearGradient id="g"><stop offset="0" stop-color="#0b4f8a"/></linearGradient></defs><title>Acme</title><path id="p" d="M0 0h10v10H0z" style="fill:url(#g)"/><use xlink:href="#p"/></svg>\n';

interface Access {
  customerName: string;
  contact?: Record<string, string | null>;
  logoUrl?: string;
}

describe(`operator CLI: tenant update (${databaseLabel})`, () => {
  let server: TestServer;
  let subdomainCount = 0;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A tenant of its own for each test, so one test's details never show in another's. */
  async function newTenant(): Promise<string> {
    subdomainCount += 1;
    const subdomain = `update-${subdomainCount}`;
    const run = await cli(server, 'tenant', 'create', '--subdomain', subdomain, '--name', 'Before Update');
    expect(run.code).toBe(0);
    return subdomain;
  }
  const access = async (subdomain: string) =>
    (await call<Access>(server.baseUrl, 'GET', `/api/auth/v1/access/${subdomain}`)).body;

  it('sets the name and contact the access lookup then answers, and clears a detail given empty', async () => {
    const subdomain = await newTenant();
    expect((await access(subdomain)).contact).toEqual({
      phone: null,
      email: null,
      hours: null,
      website: null,
    });

    const run = await cli(
      server,
      'tenant',
      'update',
      '--subdomain',
      subdomain,
      '--name',
      '  Acme Recovery  ',
      '--phone',
      '(800) 555-0142',
      '--email',
      'help@acme.example',
      '--hours',
      'Mon-Fri 8 AM-6 PM ET',
      '--website',
      'https://acme.example/help',
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Updated tenant ${subdomain} (name, contact): Acme Recovery`);
    // The lookup answers the change at once, though it answered the tenant from its cache before.
    expect(await access(subdomain)).toMatchObject({
      customerName: 'Acme Recovery',
      contact: {
        phone: '(800) 555-0142',
        email: 'help@acme.example',
        hours: 'Mon-Fri 8 AM-6 PM ET',
        website: 'https://acme.example/help',
      },
    });

    expect((await cli(server, 'tenant', 'update', '--subdomain', subdomain, '--hours', '')).code).toBe(0);
    expect((await access(subdomain)).contact).toEqual({
      phone: '(800) 555-0142',
      email: 'help@acme.example',
      hours: null,
      website: 'https://acme.example/help',
    });

    const list = await cli(server, 'tenant', 'list', '--format', 'json');
    expect(JSON.parse(list.stdout)).toContainEqual(
      expect.objectContaining({ subdomain, name: 'Acme Recovery', hasLogo: false }),
    );
  });

  it.each([
    [['--phone', '555-01'], 'phone'],
    [['--email', 'help@nowhere'], 'email'],
    [['--hours', 'Monday\nto Friday'], 'hours'],
    [['--hours', 'x'.repeat(101)], 'hours'],
    [['--website', 'javascript:alert(1)'], 'website'],
    [['--website', 'ftp://acme.example'], 'website'],
    [['--name', '   '], 'name'],
  ])('refuses %j, naming the field, and changes nothing', async (option, field) => {
    const subdomain = await newTenant();
    const run = await cli(
      server,
      'tenant',
      'update',
      '--subdomain',
      subdomain,
      '--phone',
      '8005550142',
      ...option,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^InvalidValue: /);
    expect(run.stderr.toLowerCase()).toContain(
      field === 'name' ? 'tenant name' : field === 'website' ? 'web address' : field,
    );
    expect(await access(subdomain)).toMatchObject({
      customerName: 'Before Update',
      contact: { phone: null },
    });
  });

  it('refuses an unknown tenant and an update that names no detail', async () => {
    const unknown = await cli(server, 'tenant', 'update', '--subdomain', 'nobody-here', '--name', 'X');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^ItemNotFound: /);
    const nothing = await cli(server, 'tenant', 'update', '--subdomain', await newTenant());
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/^InvalidValue: Name at least one detail/);
  });

  it.each([
    ['a PNG', 'logo.png', png, 'image/png'],
    ['an SVG that only draws', 'logo.svg', Buffer.from(drawing), 'image/svg+xml'],
  ])(
    'stores %s and serves it at an address of its content, kept for good under its own policy',
    async (_, name, content, mediaType) => {
      const subdomain = await newTenant();
      const run = await cli(
        server,
        'tenant',
        'update',
        '--subdomain',
        subdomain,
        '--logo',
        tempFile(name, content),
      );
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const { logoUrl } = await access(subdomain);
      expect(logoUrl).toMatch(new RegExp(`^/api/auth/v1/access/${subdomain}/logo/[0-9a-f]{32}$`));

      const response = await fetch(`${server.baseUrl}${logoUrl}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(mediaType);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(content);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    },
  );

  it('gives a changed logo a new address, and the old one, like a removed logo, answers 404', async () => {
    const subdomain = await newTenant();
    await cli(server, 'tenant', 'update', '--subdomain', subdomain, '--logo', tempFile('a.png', png));
    const first = (await access(subdomain)).logoUrl ?? '';
    await cli(server, 'tenant', 'update', '--subdomain', subdomain, '--logo', tempFile('b.svg', drawing));
    const second = (await access(subdomain)).logoUrl ?? '';
    expect(second).not.toBe(first);
    expect((await call(server.baseUrl, 'GET', first)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}${second}`)).status).toBe(200);

    expect((await cli(server, 'tenant', 'update', '--subdomain', subdomain, '--logo', 'none')).code).toBe(0);
    expect(await access(subdomain)).not.toHaveProperty('logoUrl');
    expect((await call(server.baseUrl, 'GET', second)).status).toBe(404);
  });

  const svg = (inner: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${inner}</svg>`;
  it.each([
    ['a script', svg('<script>alert(1)</script>')],
    ['an event attribute', svg('<rect width="10" height="10" onclick="alert(1)"/>')],
    ['an event attribute on the root', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'],
    ['an external image', svg('<image href="https://tracker.example/p.png" width="1" height="1"/>')],
    ['an external use', svg('<use href="https://evil.example/s.svg#x"/>')],
    ['an external xlink:href', svg('<a xlink:href="javascript:alert(1)"><rect width="1" height="1"/></a>')],
    ['an external url() in a style', svg('<rect style="fill:url(https://evil.example/x.svg#p)"/>')],
    ['an @import', svg('<style>@import "https://evil.example/x.css";</style>')],
    ['a foreignObject', svg('<foreignObject><div>hi</div></foreignObject>')],
    ['an animation that rewrites a link', svg('<set attributeName="href" to="javascript:alert(1)"/>')],
    ['a DOCTYPE with entities', `<!DOCTYPE svg [<!ENTITY x "y">]>${svg('<text>&x;</text>')}`],
    ['character references', svg('<rect style="fill:url&#40;https://evil.example/x)"/>')],
    ['a data: address', svg('<rect style="fill:url(data:image/png;base64,AAAA)"/>')],
    ['a processing instruction', `<?xml-stylesheet href="https://evil.example/x.css"?>${svg('')}`],
  ])('refuses an SVG with %s and keeps the logo it had', async (_, text) => {
    const subdomain = await newTenant();
    await cli(server, 'tenant', 'update', '--subdomain', subdomain, '--logo', tempFile('ok.png', png));
    const before = (await access(subdomain)).logoUrl;
    const run = await cli(
      server,
      'tenant',
      'update',
      '--subdomain',
      subdomain,
      '--logo',
      tempFile('bad.svg', text),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^InvalidValue: The logo must be a PNG or SVG file/);
    expect((await access(subdomain)).logoUrl).toBe(before);
  });

  it.each([
    ['an empty file', Buffer.alloc(0), 'empty'],
    ['a file over 64 KB', Buffer.concat([png, Buffer.alloc(64 * 1024)]), 'more than'],
    [
      'a JPEG',
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]),
      'neither a PNG nor an SVG',
    ],
    ['a PNG signature without a picture', png.subarray(0, 12), 'not a complete PNG'],
  ])('refuses %s', async (_, content, problem) => {
    const subdomain = await newTenant();
    const run = await cli(
      server,
      'tenant',
      'update',
      '--subdomain',
      subdomain,
      '--logo',
      tempFile('logo.bin', content),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(problem);
    expect(await access(subdomain)).not.toHaveProperty('logoUrl');
  });

  it('refuses a logo file it cannot read, as a mistyped command', async () => {
    const run = await cli(server, 'tenant', 'update', '--subdomain', 'sender', '--logo', '/no/such/logo.png');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Cannot read the file /no/such/logo.png.');
  });

  it("sets the consumers' default language and the debt-collector setting, which the lookup and the list then show", async () => {
    const subdomain = await newTenant();
    expect(await access(subdomain)).toMatchObject({ defaultLanguage: 'en', debtCollector: false });

    const update = (...options: string[]) =>
      cli(server, 'tenant', 'update', '--subdomain', subdomain, ...options);
    const run = await update('--default-language', 'es', '--debt-collector', 'true');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`Updated tenant ${subdomain} (defaultLanguage, debtCollector): Before Update\n`);
    expect(await access(subdomain)).toMatchObject({ defaultLanguage: 'es', debtCollector: true });

    const listed = JSON.parse((await cli(server, 'tenant', 'list', '--format', 'json')).stdout) as {
      subdomain: string;
    }[];
    expect(listed.find((tenant) => tenant.subdomain === subdomain)).toMatchObject({
      defaultLanguage: 'es',
      debtCollector: true,
      staffSecondFactor: 'optional',
    });
    const table = (await cli(server, 'tenant', 'list')).stdout.split('\n');
    expect(table[0]).toMatch(/\bdefaultLanguage\s+debtCollector\s+name$/);
    expect(table.find((line) => line.includes(` ${subdomain} `))).toMatch(/\ses\s+true\s+Before Update$/);

    // One setting changes without the other.
    expect((await update('--debt-collector', 'false')).code).toBe(0);
    expect(await access(subdomain)).toMatchObject({ defaultLanguage: 'es', debtCollector: false });

    for (const [option, value] of [
      ['--default-language', 'fr'],
      ['--debt-collector', 'yes'],
    ] as const) {
      const refused = await update(option, value);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${option} must be one of:`);
    }
  });
});
