import {
  type AuthTokenResult,
  type ConsumerIdentityToken,
  debtCollectorDisclosure,
  type Language,
} from '@entry/domain';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumers } from '../src/db/schema.ts';
import { consumerImportMessages } from '../src/services/consumer-import.ts';
import { mailTexts } from '../src/services/mail-texts.ts';
import { cli, consumerHeader, csv, tempFile } from './cli-helpers.ts';
import {
  type ConsumerFixture,
  consumerRow,
  createConsumer,
  createTenant,
  createToken,
} from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

describe(`consumers' language and the debt-collector line (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '1000' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const subdomainOf = async (tenantId: number) =>
    tenantId === server.demo.tenant.customerId
      ? server.demo.tenant.subdomain
      : ((
          await call<{ subdomain: string }>(server.baseUrl, 'GET', `/api/auth/v1/access/customer/${tenantId}`)
        ).body.subdomain ?? '');

  /** A lookup with the consumer's link, from a page in `language` when given; answers the pending session. */
  async function lookup(consumer: ConsumerFixture, language?: Language): Promise<AuthTokenResult> {
    const token = await createToken(server, consumer, 'PostalCode');
    const response = await call<{ authToken: AuthTokenResult }>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/consumer/sign-in/lookup',
      {
        body: {
          customerId: consumer.tenantId,
          subdomain: await subdomainOf(consumer.tenantId),
          token: token.guid,
          postalCode: consumer.answers.postalCode,
          ...(language === undefined ? {} : { language }),
        },
      },
    );
    expect(response.status).toBe(200);
    return response.body.authToken;
  }

  /** The last mail to the address, once the outbox has sent it. */
  async function lastMailTo(address: string | null) {
    await server.ctx.mail.idle();
    const mail = server.mailer.sent.filter((sent) => sent.to === address).at(-1);
    if (mail === undefined) throw new Error(`no mail to ${address}`);
    return mail;
  }

  const codeOf = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? '';

  it('mails a Spanish consumer the code, its opt-out and its preferences link in Spanish', async () => {
    const consumer = await createConsumer(server, { language: 'es' });
    await lookup(consumer);
    const mail = await lastMailTo(consumer.email);
    expect(mail.subject).toBe('Su código de verificación');
    expect(mail.text).toContain(mailTexts.es.codeText(codeOf(mail.text), 10));
    expect(mail.text).toMatch(
      new RegExp(
        `${mailTexts.es.optOutText} http://sender\\.localhost:8080/unsubscribe\\?token=[^\\s&]+&lang=es\\n$`,
      ),
    );
    expect(mail.text).not.toContain(mailTexts.en.optOutText);
    expect(mail.headers['List-Unsubscribe']).toMatch(
      /^<http:\/\/sender\.localhost:8080\/api\/v1\/communication\/email\/unsubscribe\?token=/,
    );
  });

  it('keeps the English mail word for word, with a preferences link that names no language', async () => {
    const consumer = await createConsumer(server);
    await lookup(consumer);
    const mail = await lastMailTo(consumer.email);
    expect(mail.subject).toBe('Your verification code');
    expect(mail.text).toMatch(
      /^Your verification code is \d{6}\. It is valid for 10 minutes\. If you did not try to sign in, you can ignore this e-mail\.\n\nThis email was sent because you asked for it, and such emails still come after you unsubscribe\. To stop the other emails we send to this address, open this link: http:\/\/sender\.localhost:8080\/unsubscribe\?token=\S+\n$/,
    );
    expect(mail.text).not.toContain('lang=');
  });

  it("writes in the page's language when the call names one, over the consumer's saved one", async () => {
    const spanish = await createConsumer(server, { language: 'es' });
    await lookup(spanish, 'en');
    expect((await lastMailTo(spanish.email)).subject).toBe(mailTexts.en.codeSubject);

    const unset = await createConsumer(server);
    await lookup(unset, 'es');
    expect((await lastMailTo(unset.email)).subject).toBe(mailTexts.es.codeSubject);
  });

  it("falls back to the organization's default language, and resends in the page's language", async () => {
    const tenant = await createTenant(server, { defaultLanguage: 'es' });
    const consumer = await createConsumer(server, { tenantId: tenant.id });
    const pending = await lookup(consumer);
    expect((await lastMailTo(consumer.email)).subject).toBe(mailTexts.es.codeSubject);

    server.clock.advance(60_000);
    const resend = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/mfa/resend', {
      token: pending.accessToken,
      body: { language: 'en' },
    });
    expect(resend.status).toBe(204);
    expect((await lastMailTo(consumer.email)).subject).toBe(mailTexts.en.codeSubject);
  });

  it('saves the page language on the consumer only once the code completes the sign-in', async () => {
    const consumer = await createConsumer(server);
    const pending = await lookup(consumer, 'es');
    expect((await consumerRow(server, consumer.id)).language).toBeNull();

    const code = codeOf((await lastMailTo(consumer.email)).text);
    const full = await call(server.baseUrl, 'POST', `/api/auth/v1/consumer/sign-in/mfa?mfaCode=${code}`, {
      token: pending.accessToken,
    });
    expect(full.status).toBe(200);
    expect((await consumerRow(server, consumer.id)).language).toBe('es');

    // The next link's read tells the landing page the saved language.
    const token = await createToken(server, consumer, 'PostalCode');
    server.clock.advance(10_000);
    const read = await call<ConsumerIdentityToken>(
      server.baseUrl,
      'GET',
      `/api/auth/v1/consumers/token/${token.guid}`,
    );
    expect(read.body.language).toBe('es');
  });

  it('saves the language given with the code over the one the lookup came with', async () => {
    const consumer = await createConsumer(server, { language: 'es' });
    const pending = await lookup(consumer, 'es');
    const code = codeOf((await lastMailTo(consumer.email)).text);
    const full = await call(server.baseUrl, 'POST', `/api/auth/v1/consumer/sign-in/mfa?mfaCode=${code}`, {
      token: pending.accessToken,
      body: { language: 'en' },
    });
    expect(full.status).toBe(200);
    expect((await consumerRow(server, consumer.id)).language).toBe('en');
  });

  it('keeps the saved language when a sign-in names none, and refuses a language it does not speak', async () => {
    const consumer = await createConsumer(server, { language: 'es' });
    const pending = await lookup(consumer);
    const code = codeOf((await lastMailTo(consumer.email)).text);
    await call(server.baseUrl, 'POST', `/api/auth/v1/consumer/sign-in/mfa?mfaCode=${code}`, {
      token: pending.accessToken,
    });
    expect((await consumerRow(server, consumer.id)).language).toBe('es');

    const token = await createToken(server, consumer, 'PostalCode');
    const refused = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
      body: {
        customerId: consumer.tenantId,
        subdomain: 'sender',
        token: token.guid,
        postalCode: consumer.answers.postalCode,
        language: 'fr',
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'InvalidValue' });
  });

  it('saves the language of a Direct link sign-in and of a lookup that needs no code', async () => {
    const direct = await createConsumer(server);
    const link = await createToken(server, direct, 'Direct');
    const signIn = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/identity-token', {
      body: { token: link.guid, customerId: direct.tenantId, subdomain: 'sender', language: 'es' },
    });
    expect(signIn.status).toBe(200);
    expect((await consumerRow(server, direct.id)).language).toBe('es');

    const tenant = await createTenant(server, { mfaRequired: false });
    const noCode = await createConsumer(server, { tenantId: tenant.id });
    const full = await lookup(noCode, 'es');
    expect(full.hasRestrictedAccess).toBe(false);
    expect((await consumerRow(server, noCode.id)).language).toBe('es');
  });

  it("adds the debt-collector line to the mail of an organization that collects debts, in the mail's language", async () => {
    const collector = await createTenant(server, { debtCollector: true });
    const english = await createConsumer(server, { tenantId: collector.id });
    await lookup(english);
    const englishMail = await lastMailTo(english.email);
    expect(englishMail.text).toContain(`\n\n${debtCollectorDisclosure.en}\n\n${mailTexts.en.optOutText}`);

    const spanish = await createConsumer(server, { tenantId: collector.id, language: 'es' });
    await lookup(spanish);
    expect((await lastMailTo(spanish.email)).text).toContain(
      `\n\n${debtCollectorDisclosure.es}\n\n${mailTexts.es.optOutText}`,
    );

    const other = await createConsumer(server);
    await lookup(other);
    const otherMail = await lastMailTo(other.email);
    expect(otherMail.text).not.toContain(debtCollectorDisclosure.en);
  });

  it('imports a language column: en and es kept, an empty value keeps what the consumer has', async () => {
    const file = (...rows: string[]) => tempFile('consumers.csv', csv(`${consumerHeader},language`, ...rows));
    const importFile = (...rows: string[]) =>
      cli(server, 'consumers', 'import', '--tenant', 'sender', '--file', file(...rows));
    const languageOf = async (consumerId: string) =>
      (
        await server.ctx.db
          .select({ language: consumers.language })
          .from(consumers)
          .where(
            and(eq(consumers.tenantId, server.demo.tenant.customerId), eq(consumers.consumerId, consumerId)),
          )
      )[0]?.language;

    const first = await importFile(
      'L-1,Lucía López,lucia@example.com,1111,30301,1970-01-01,es',
      'L-2,Leo Lane,leo@example.com,2222,30302,1971-01-01,EN',
      'L-3,Lee Long,lee@example.com,3333,30303,1972-01-01,',
    );
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect([await languageOf('L-1'), await languageOf('L-2'), await languageOf('L-3')]).toEqual([
      'es',
      'en',
      null,
    ]);

    const again = await importFile('L-1,Lucía López,lucia@example.com,1111,30301,1970-01-01,');
    expect(again.code).toBe(0);
    expect(await languageOf('L-1')).toBe('es');
  });

  it('refuses an import with a language it does not speak, naming its line and column, and writes nothing', async () => {
    const run = await cli(
      server,
      'consumers',
      'import',
      '--tenant',
      'sender',
      '--file',
      tempFile(
        'consumers.csv',
        csv(
          `${consumerHeader},language`,
          'M-1,Mia Moss,mia@example.com,4444,30304,1973-01-01,es',
          'M-2,Max Moss,max@example.com,5555,30305,1974-01-01,Spanish',
        ),
      ),
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('line 3, column 7 (language)');
    expect(run.stderr).toContain(consumerImportMessages.language);
    const written = await server.ctx.db
      .select({ id: consumers.id })
      .from(consumers)
      .where(eq(consumers.consumerId, 'M-1'));
    expect(written).toEqual([]);
  });
});
