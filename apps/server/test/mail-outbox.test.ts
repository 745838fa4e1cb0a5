import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, mailOutbox } from '../src/db/schema.ts';
import { executePart } from '../src/db/sql.ts';
import { createMailService, type Mailer, type OutgoingMail } from '../src/services/mail.ts';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

/** Fails while `down` is set, like an SMTP relay that is unreachable for a while. */
class FlakyMailer implements Mailer {
  down = true;
  readonly sent: OutgoingMail[] = [];

  async send(mail: OutgoingMail): Promise<void> {
    if (this.down) throw new Error('connect ECONNREFUSED');
    this.sent.push(mail);
  }
}

describe(`mail outbox and audit log (${databaseLabel})`, () => {
  let server: TestServer;
  const mailer = new FlakyMailer();
  beforeAll(async () => {
    server = await startTestServer({ mailer });
  });
  afterAll(async () => {
    await server?.close();
  });

  const unsubscribe = {
    pageUrl: 'http://sender.localhost:8080/unsubscribe?token=t',
    oneClickUrl: 'http://sender.localhost:8080/api/v1/communication/email/unsubscribe?token=t',
  };

  it('keeps a mail whose sending failed and sends it on a later attempt, with backoff', async () => {
    const id = await server.ctx.mail.enqueueMail({
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
    const instances = ['a', 'b'].map((instance) =>
      createMailService({
        db: server.ctx.db,
        config: { mailFrom: 'noreply@example.com' },
        clock: server.clock,
        mailer: sentBy(instance, log),
      }),
    );
    const recipients = Array.from({ length: 45 }, (_, index) => `twice-${index}@example.com`);
    for (const to of recipients) {
      await executePart(
        server.ctx.db,
        server.ctx.mail.insertOf({ tenantId: 1001, to, subject: 'Your code', text: 'Hello', unsubscribe }),
      );
    }
    const counts = await Promise.all(instances.map((instance) => instance.deliverPending()));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(recipients.length);
    expect(log.map((entry) => entry.split(' ')[1]).sort()).toEqual([...recipients].sort());
    const unsent = await server.ctx.db
      .select()
      .from(mailOutbox)
      .where(sql`${mailOutbox.sentAt} IS NULL AND ${mailOutbox.toAddress} LIKE 'twice-%'`);
    expect(unsent).toEqual([]);
  });

  it('marks the sent mails of a batch and keeps only the one that failed for a later attempt', async () => {
    const log: string[] = [];
    const bouncing = 'batch-1@example.com';
    const service = createMailService({
      db: server.ctx.db,
      config: { mailFrom: 'noreply@example.com' },
      clock: server.clock,
      mailer: {
        async send(mail) {
          if (mail.to === bouncing && log.length < 3) throw new Error('mailbox busy');
          log.push(mail.to);
        },
      },
    });
    const recipients = ['batch-0@example.com', bouncing, 'batch-2@example.com', 'batch-3@example.com'];
    for (const to of recipients) {
      await executePart(
        server.ctx.db,
        server.ctx.mail.insertOf({ tenantId: 1001, to, subject: 'Your code', text: 'Hello', unsubscribe }),
      );
    }
    expect(await service.deliverPending()).toBe(3);
    const waiting = await server.ctx.db
      .select()
      .from(mailOutbox)
      .where(sql`${mailOutbox.sentAt} IS NULL AND ${mailOutbox.toAddress} LIKE 'batch-%'`);
    expect(waiting).toMatchObject([{ toAddress: bouncing, attempts: 1, lastError: 'mailbox busy' }]);

    server.clock.advanceMinutes(1);
    expect(await service.deliverPending()).toBe(1);
    expect(log).toEqual(['batch-0@example.com', 'batch-2@example.com', 'batch-3@example.com', bouncing]);
  });

  it('refuses to change or remove audit rows', async () => {
    await server.ctx.audit.record({ event: 'test.append-only', outcome: 'success' });
    await expect(server.ctx.db.execute(sql`UPDATE audit_log SET outcome = 'failure'`)).rejects.toThrow();
    await expect(server.ctx.db.delete(auditLog)).rejects.toThrow();
    const rows = await server.ctx.db.select().from(auditLog).where(eq(auditLog.event, 'test.append-only'));
    expect(rows).toHaveLength(1);
  });
});
