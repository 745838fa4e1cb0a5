import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../src/db/index.ts';
import { auditLog, mailOutbox } from '../src/db/schema.ts';
import { StatementBoundClient } from '../src/db/statement-bounds.ts';
import { createMailService, oneTimeCodeMailKind } from '../src/services/mail.ts';
import {
  createSmtpMailer,
  type Mailer,
  mailsInFlight,
  type OutgoingMail,
} from '../src/services/mail-transports.ts';
import { mfaCodeLifetimeMs } from '../src/services/mfa.ts';
import { claimDueMail, insertOutboxMail, markOutboxMailSent } from '../src/stores/mail-outbox.ts';
import { ThreadCalls } from '../src/thread-calls.ts';
import { createConsumer, createToken } from './consumer-fixtures.ts';
import {
  call,
  createTestDatabase,
  databaseLabel,
  freePort,
  makeWebDist,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from './helpers/server.ts';
import { startSmtpServer } from './helpers/smtp.ts';

/** Fails while `down` is set, like an SMTP relay that is unreachable for a while. */
class FlakyMailer implements Mailer {
  down = true;
  readonly sent: OutgoingMail[] = [];

  async send(mail: OutgoingMail): Promise<void> {
    if (this.down) throw new Error('connect ECONNREFUSED');
    this.sent.push(mail);
  }
}

const unsubscribe = {
  pageUrl: 'http://sender.localhost:8080/unsubscribe?token=t',
  oneClickUrl: 'http://sender.localhost:8080/api/v1/communication/email/unsubscribe?token=t',
};

/** Queues a mail to each address without starting its delivery. */
async function queueMails(server: TestServer, recipients: readonly string[]): Promise<void> {
  for (const to of recipients) {
    await insertOutboxMail(
      server.ctx.db,
      server.ctx.mail.rowOf({
        kind: 'test',
        tenantId: 1001,
        to,
        subject: 'Your code',
        text: 'Hello',
        unsubscribe,
      }),
    );
  }
}

/** A delivery of the server's outbox of its own, through `mailer`. */
const deliveryThrough = (server: TestServer, mailer: Mailer) =>
  createMailService({
    db: server.ctx.db,
    config: server.config,
    clock: server.clock,
    audit: server.ctx.audit,
    pepper: server.ctx.pepper,
    mailer,
  });

/** The unsent mails to addresses starting with `prefix`. */
const unsentTo = (server: TestServer, prefix: string) =>
  server.ctx.db
    .select()
    .from(mailOutbox)
    .where(sql`${mailOutbox.sentAt} IS NULL AND ${mailOutbox.toAddress} LIKE ${`${prefix}%`}`);

describe(`mail outbox and audit log (${databaseLabel})`, () => {
  let server: TestServer;
  const mailer = new FlakyMailer();
  beforeAll(async () => {
    // Its own retries wait an hour: the mails a test queues go only through the deliveries it starts.
    server = await startTestServer({ mailer, env: { SMTP_TIMEOUT_SECONDS: '3600' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('keeps a mail whose sending failed and sends it on a later attempt, with backoff', async () => {
    const id = await server.ctx.mail.enqueueMail({
      kind: 'test',
      tenantId: 1001,
      to: 'someone@example.com',
      subject: 'Your code',
      text: 'Hello',
      unsubscribe,
    });
    await server.ctx.mail.idle();
    const [failed] = await server.ctx.db.select().from(mailOutbox).where(eq(mailOutbox.id, id));
    expect(failed).toMatchObject({ sentAt: null, attempts: 1, lastError: 'connect ECONNREFUSED' });
    expect(failed?.nextAttemptAt.getTime()).toBeGreaterThan(server.clock.now().getTime());

    mailer.down = false;
    expect(await server.ctx.mail.deliverPending()).toBe(0);
    server.clock.advanceMinutes(1);
    expect(await server.ctx.mail.deliverPending()).toBe(1);
    const [sent] = await server.ctx.db.select().from(mailOutbox).where(eq(mailOutbox.id, id));
    expect(sent?.sentAt).not.toBeNull();
    expect(mailer.sent[0]).toMatchObject({
      to: 'someone@example.com',
      headers: {
        'List-Unsubscribe': `<${unsubscribe.oneClickUrl}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
    expect(mailer.sent[0]?.text).toContain(unsubscribe.pageUrl);
    // The opt-out says what it stops: the product's own mails are asked for and still come.
    expect(mailer.sent[0]?.text).toContain(
      'This email was sent because you asked for it, and such emails still come after you unsubscribe.',
    );
  });

  it('sends each mail once when two instances deliver the outbox at the same time', async () => {
    const sentBy = (instance: string, log: string[]): Mailer => ({
      async send(mail) {
        // Lets the other instance claim and send in between, as a real SMTP round trip would.
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`${instance} ${mail.to}`);
      },
    });
    const log: string[] = [];
    const instances = ['a', 'b'].map((instance) => deliveryThrough(server, sentBy(instance, log)));
    const recipients = Array.from({ length: 45 }, (_, index) => `twice-${index}@example.com`);
    await queueMails(server, recipients);
    const counts = await Promise.all(instances.map((instance) => instance.deliverPending()));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(recipients.length);
    expect(log.map((entry) => entry.split(' ')[1]).sort()).toEqual([...recipients].sort());
    expect(await unsentTo(server, 'twice-')).toEqual([]);
  });

  it('delivers a burst of mail in two round trips to the database for each claim: the claim, then the marks with their audit rows', async () => {
    const taken: string[] = [];
    const instance = deliveryThrough(server, {
      async send(mail) {
        taken.push(mail.to);
      },
    });
    const recipients = Array.from({ length: 10 * mailsInFlight }, (_, index) => `burst-${index}@example.com`);
    await queueMails(server, recipients);
    // Every statement, transaction step and reply crosses here, on either database.
    const roundTrips = [
      vi.spyOn(StatementBoundClient.prototype, 'query'),
      vi.spyOn(ThreadCalls.prototype, 'call'),
    ];
    try {
      expect(await instance.deliverPending()).toBe(recipients.length);
      const claims = Math.ceil(recipients.length / mailsInFlight);
      // One more claim finds nothing left.
      expect(roundTrips.reduce((sum, spy) => sum + spy.mock.calls.length, 0)).toBeLessThanOrEqual(
        2 * claims + 1,
      );
    } finally {
      for (const spy of roundTrips) spy.mockRestore();
    }
    expect(taken.sort()).toEqual([...recipients].sort());
    expect(await unsentTo(server, 'burst-')).toEqual([]);
    const audited = await server.ctx.db
      .select({ mailId: sql<number>`(${auditLog.detail}->>'mailId')::bigint` })
      .from(auditLog)
      .where(
        and(
          eq(auditLog.event, 'mail.sent'),
          sql`${auditLog.detail}->>'mailId' IN (SELECT id::text FROM mail_outbox WHERE to_address LIKE 'burst-%')`,
        ),
      );
    expect(audited).toHaveLength(recipients.length);
  });

  it('marks each mail sent as its server takes it and keeps only the one that failed for a later attempt', async () => {
    const log: string[] = [];
    const bouncing = 'batch-1@example.com';
    const service = deliveryThrough(server, {
      async send(mail) {
        if (mail.to === bouncing && log.length < 3) throw new Error('mailbox busy');
        log.push(mail.to);
      },
    });
    const recipients = ['batch-0@example.com', bouncing, 'batch-2@example.com', 'batch-3@example.com'];
    await queueMails(server, recipients);
    expect(await service.deliverPending()).toBe(3);
    expect(await unsentTo(server, 'batch-')).toMatchObject([
      { toAddress: bouncing, attempts: 1, lastError: 'mailbox busy' },
    ]);

    server.clock.advanceMinutes(1);
    expect(await service.deliverPending()).toBe(1);
    expect(log).toEqual(['batch-0@example.com', 'batch-2@example.com', 'batch-3@example.com', bouncing]);
  });

  it('drops a code mail unsent once its code has expired, with an audit row, and still sends mail without an expiry', async () => {
    mailer.down = true;
    const email = 'late-code@example.com';
    const consumer = await createConsumer(server, { email });
    const token = await createToken(server, consumer, 'PostalCode');
    const lookup = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
      body: {
        customerId: 1001,
        subdomain: 'sender',
        token: token.guid,
        postalCode: consumer.answers.postalCode,
      },
    });
    expect(lookup.status).toBe(200);
    await server.ctx.mail.enqueueMail({
      kind: 'test',
      tenantId: 1001,
      to: 'no-expiry@example.com',
      subject: 'News',
      text: 'Hello',
      unsubscribe,
    });
    await server.ctx.mail.idle();
    const [codeMail] = await unsentTo(server, email);
    expect(codeMail).toMatchObject({ attempts: 1, lastError: 'connect ECONNREFUSED' });
    expect(codeMail?.expiresAt?.getTime()).toBe((codeMail?.createdAt.getTime() ?? 0) + mfaCodeLifetimeMs);

    server.clock.advance(mfaCodeLifetimeMs);
    mailer.down = false;
    await server.ctx.mail.deliverPending();
    const sentTo = mailer.sent.map((mail) => mail.to);
    expect(sentTo).toContain('no-expiry@example.com');
    expect(sentTo).not.toContain(email);
    expect(await server.ctx.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email))).toEqual([]);
    const dropped = await server.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.event, 'mail.dropped'), sql`${auditLog.detail}->>'to' = ${email}`));
    expect(dropped).toMatchObject([
      {
        outcome: 'failure',
        tenantId: 1001,
        detail: { mailId: codeMail?.id, reason: 'expired', attempts: 1, lastError: 'connect ECONNREFUSED' },
      },
    ]);
  });

  /** A lookup sign-in of a new consumer at `email`, which queues the mail of its one-time code. */
  async function lookUpWithCode(email: string): Promise<void> {
    const consumer = await createConsumer(server, { email });
    const token = await createToken(server, consumer, 'PostalCode');
    const lookup = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
      body: {
        customerId: 1001,
        subdomain: 'sender',
        token: token.guid,
        postalCode: consumer.answers.postalCode,
      },
    });
    expect(lookup.status).toBe(200);
  }

  it("sends a consumer's one-time code ahead of a batch of other mail queued before it", async () => {
    mailer.down = false;
    const others = Array.from({ length: 3 * mailsInFlight }, (_, index) => `ahead-${index}@example.com`);
    await queueMails(server, others);
    const before = mailer.sent.length;
    await lookUpWithCode('first-code@example.com');
    await server.ctx.mail.idle();
    expect(mailer.sent.slice(before).map((mail) => mail.to)).toEqual(['first-code@example.com', ...others]);
  });

  it("keeps a one-time code's place ahead of other mail when its send is retried", async () => {
    mailer.down = true;
    const others = Array.from({ length: 3 * mailsInFlight }, (_, index) => `retried-${index}@example.com`);
    await queueMails(server, others);
    await lookUpWithCode('retried-code@example.com');
    await server.ctx.mail.idle();
    expect(await unsentTo(server, 'retried-')).toHaveLength(others.length + 1);

    mailer.down = false;
    server.clock.advanceMinutes(1);
    const before = mailer.sent.length;
    expect(await server.ctx.mail.deliverPending()).toBe(others.length + 1);
    expect(mailer.sent.slice(before).map((mail) => mail.to)).toEqual(['retried-code@example.com', ...others]);
  });

  it('marks a mail sent by its key, however the outbox has grown since the marks began', async () => {
    const { db } = server.ctx;
    const queueOne = () =>
      insertOutboxMail(
        db,
        server.ctx.mail.rowOf({
          kind: 'test',
          tenantId: 1001,
          to: 'mark@example.com',
          subject: 'Hi',
          text: 'Hello',
          unsubscribe,
        }),
      );
    const sentMark = (id: number) => ({
      id,
      at: new Date(),
      auditRow: server.ctx.audit.rowOf({ event: 'mail.sent', outcome: 'success', detail: { mailId: id } }),
    });
    const fullScans = async () => {
      // Activity counts reach the statistics views at most once a second unless forced.
      await db.execute(sql`SELECT pg_stat_force_next_flush()`);
      const [row] = await db
        .select({ scans: sql<string>`seq_scan` })
        .from(sql`pg_stat_user_tables`)
        .where(sql`relname = 'mail_outbox'`);
      return Number(row?.scans);
    };
    // Marks while the outbox is nearly empty: after five runs of one text a database may keep one
    // plan for it, made for the table as it was then.
    for (let mark = 0; mark < 8; mark += 1) await markOutboxMailSent(db, sentMark(await queueOne()));
    await db.execute(sql`INSERT INTO mail_outbox (to_address, subject, text_body, sent_at)
      SELECT 'filler-' || n || '@example.com', 'Subject', repeat('body ', 200), now()
      FROM generate_series(1, 5000) AS n`);
    const last = await queueOne();
    const before = await fullScans();
    await markOutboxMailSent(db, sentMark(last));
    expect(await fullScans()).toBe(before);
    const [marked] = await db
      .select({ sentAt: mailOutbox.sentAt })
      .from(mailOutbox)
      .where(eq(mailOutbox.id, last));
    expect(marked?.sentAt).toBeInstanceOf(Date);
  });

  it('claims a due code without reading the mail that waits for a later attempt, however the outbox has grown', async () => {
    const { db } = server.ctx;
    const queueDue = (kind: string, to: string) =>
      insertOutboxMail(
        db,
        server.ctx.mail.rowOf({ kind, tenantId: 1001, to, subject: 'Hi', text: 'Hello', unsubscribe }),
      );
    const claimOne = () => {
      const now = server.clock.now();
      return claimDueMail(db, { now, leaseUntil: new Date(now.getTime() + 60_000), limit: 1 });
    };
    const heapBlocksRead = async () => {
      await db.execute(sql`SELECT pg_stat_force_next_flush()`);
      const [row] = await db
        .select({ blocks: sql<string>`heap_blks_hit + heap_blks_read` })
        .from(sql`pg_statio_user_tables`)
        .where(sql`relname = 'mail_outbox'`);
      return Number(row?.blocks);
    };
    // Claims while the outbox is nearly empty, as a plan kept from then would be.
    for (let claim = 0; claim < 8; claim += 1) {
      await queueDue('test', `claim-${claim}@example.com`);
      expect(await claimOne()).toHaveLength(1);
    }
    // Mail waiting for a later attempt fills the index of unsent mail, but none of it is due.
    await db.execute(sql`INSERT INTO mail_outbox (to_address, subject, text_body, next_attempt_at)
      SELECT 'claim-filler-' || n || '@example.com', 'Subject', repeat('body ', 200), now() + interval '1 day'
      FROM generate_series(1, 5000) AS n`);
    try {
      const code = await queueDue(oneTimeCodeMailKind, 'claim-code@example.com');
      const before = await heapBlocksRead();
      expect((await claimOne()).map((mail) => mail.id)).toEqual([code]);
      // The code's row and its new version, not the fillers' hundreds of blocks.
      expect((await heapBlocksRead()) - before).toBeLessThan(20);
    } finally {
      await db.execute(sql`DELETE FROM mail_outbox WHERE to_address LIKE 'claim-filler-%'`);
    }
  });

  it('refuses to change or remove audit rows', async () => {
    await server.ctx.audit.record({ event: 'test.append-only', outcome: 'success' });
    await expect(server.ctx.db.execute(sql`UPDATE audit_log SET outcome = 'failure'`)).rejects.toThrow();
    await expect(server.ctx.db.delete(auditLog)).rejects.toThrow();
    const rows = await server.ctx.db.select().from(auditLog).where(eq(auditLog.event, 'test.append-only'));
    expect(rows).toHaveLength(1);
  });
});

describe(`mail delivery through SMTP servers that misbehave (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    // Only each test's own delivery takes the mails it queues.
    server.ctx.mail.stop();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends a burst over as many connections as it sends mails at once, and lets them go when it closes', async () => {
    let connections = 0;
    const smtp = await startSmtpServer({
      greets() {
        connections += 1;
        return true;
      },
    });
    const mailer = createSmtpMailer(smtp.url, 3_000);
    try {
      const delivery = deliveryThrough(server, mailer);
      const recipients = Array.from(
        { length: 5 * mailsInFlight },
        (_, index) => `pooled-${index}@example.com`,
      );
      await queueMails(server, recipients);
      expect(await delivery.deliverPending()).toBe(recipients.length);
      expect(smtp.mails.map((mail) => mail.to[0]).sort()).toEqual([...recipients].sort());
      expect(connections).toBeLessThanOrEqual(mailsInFlight);
    } finally {
      mailer.close();
      await smtp.close();
    }
  });

  it('a server that accepts a connection and never greets holds up only the mail sent over it', async () => {
    let silentOnce = true;
    const smtp = await startSmtpServer({
      greets() {
        const greets = !silentOnce;
        silentOnce = false;
        return greets;
      },
    });
    const mailer = createSmtpMailer(smtp.url, 3_000);
    try {
      const delivery = deliveryThrough(server, mailer);
      const recipients = Array.from({ length: mailsInFlight + 2 }, (_, index) => `hang-${index}@example.com`);
      await queueMails(server, recipients);
      const delivering = delivery.deliverPending();

      // Every other mail arrives while the silent connection still waits for its greeting.
      await smtp.waitUntil(() => smtp.mails.length === recipients.length - 1);
      expect(smtp.waiting()).toBe(1);
      expect(await delivering).toBe(recipients.length - 1);
      const held = await unsentTo(server, 'hang-');
      expect(held).toMatchObject([{ attempts: 1, lastError: expect.stringMatching(/greeting/i) }]);

      server.clock.advanceMinutes(1);
      expect(await delivery.deliverPending()).toBe(1);
      expect(smtp.mails.map((mail) => mail.to[0]).sort()).toEqual([...recipients].sort());
    } finally {
      mailer.close();
      await smtp.close();
    }
  });

  it('cuts a send off at its limit when the server talks on without ever answering', async () => {
    // Greets, then answers EHLO with continuation lines that never end: the socket is never idle.
    const talker = createServer((socket: Socket) => {
      socket.on('error', () => undefined);
      socket.write('220 talker ESMTP\r\n');
      let talking: NodeJS.Timeout | undefined;
      socket.once('data', () => {
        talking = setInterval(() => socket.write('250-still thinking\r\n'), 50);
      });
      socket.on('end', () => socket.end());
      socket.on('close', () => clearInterval(talking));
    });
    talker.listen(0, '127.0.0.1');
    await once(talker, 'listening');
    const address = talker.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const mailer = createSmtpMailer(`smtp://127.0.0.1:${address.port}`, 200);
    try {
      const delivery = deliveryThrough(server, mailer);
      await queueMails(server, ['talked-to@example.com']);
      expect(await delivery.deliverPending()).toBe(0);
      expect(await unsentTo(server, 'talked-to@')).toMatchObject([
        { attempts: 1, lastError: 'The SMTP server did not take the mail within 0.6 s' },
      ]);
    } finally {
      mailer.close();
      talker.close();
    }
  });
});

describe(`mail outbox across a kill -9 of the server (${databaseLabel})`, () => {
  const serverRoot = path.resolve(import.meta.dirname, '..');
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** `main.ts serve` in a process of its own, its output kept for the failure message. */
  async function startServe(smtpUrl: string) {
    const env: Record<string, string> = {
      PORT: String(await freePort()),
      DATA_DIR: database.dataDir,
      KBA_PEPPER: database.pepper,
      WEB_DIST_DIR: makeWebDist(database.dataDir),
      SMTP_URL: smtpUrl,
      SMTP_TIMEOUT_SECONDS: '3',
      LOG_LEVEL: 'warn',
      MIGRATE: '1',
    };
    if (database.databaseUrl !== undefined) env.DATABASE_URL = database.databaseUrl;
    if (database.authSigningKey !== undefined) env.AUTH_SIGNING_KEY = database.authSigningKey;
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      cwd: serverRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    return { child, exited, output: () => output };
  }

  it('sends every mail after the server dies mid-delivery, only the one in flight twice', async () => {
    const recipients = Array.from({ length: 12 }, (_, index) => `crash-${index}@example.com`);
    const seeding = await openDatabase({ dataDir: database.dataDir, databaseUrl: database.databaseUrl });
    try {
      const now = new Date();
      for (const to of recipients) {
        await insertOutboxMail(seeding.db, {
          tenantId: null,
          toAddress: to,
          subject: 'Your code',
          textBody: 'Hello\n',
          htmlBody: null,
          headers: {},
          createdAt: now,
          nextAttemptAt: now,
          expiresAt: null,
          evidence: null,
          priority: 0,
        });
      }
    } finally {
      await seeding.close();
    }

    // Before the crash the server takes three mails, keeps the fourth without answering (its sender
    // cannot know it went), and leaves every later connection and mail waiting; after it, it takes all.
    let crashed = false;
    let taken = 0;
    let unanswered: string | undefined;
    const smtp = await startSmtpServer({
      greets: () => crashed || unanswered === undefined,
      receives(mail) {
        if (crashed) return 'accept';
        if (unanswered !== undefined) return 'leave-unanswered';
        if (taken < 3) {
          taken += 1;
          return 'accept';
        }
        unanswered = mail.to[0];
        return 'keep-unanswered';
      },
    });
    try {
      const first = await startServe(smtp.url);
      try {
        // Every place in flight waits on the server: each mail taken before has been marked sent.
        await smtp.waitUntil(() => smtp.waiting() === mailsInFlight, 60_000);
      } catch (error) {
        throw new Error(`${String(error)}\n${first.output()}`);
      } finally {
        first.child.kill('SIGKILL');
        await first.exited;
      }
      crashed = true;

      const second = await startServe(smtp.url);
      try {
        // Within a minute of the restart, the claims of the dead server included.
        await smtp.waitUntil(
          () => recipients.every((to) => smtp.mails.some((mail) => mail.to.includes(to))),
          60_000,
        );
      } catch (error) {
        throw new Error(`${String(error)}\n${second.output()}`);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      const copies = Object.fromEntries(
        recipients.map((to) => [to, smtp.mails.filter((mail) => mail.to.includes(to)).length]),
      );
      expect(unanswered).toBeDefined();
      expect(copies).toEqual(Object.fromEntries(recipients.map((to) => [to, to === unanswered ? 2 : 1])));
    } finally {
      await smtp.close();
    }
  }, 150_000);
});
