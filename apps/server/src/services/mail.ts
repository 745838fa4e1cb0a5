import nodemailer from 'nodemailer';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { StatementPart } from '../db/sql.ts';
import {
  claimDueMail,
  insertOutboxMail,
  markOutboxMailFailed,
  markOutboxMailSent,
  type NewOutboxMail,
  outboxMailInsert,
} from '../stores/mail-outbox.ts';

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  headers: Record<string, string>;
}

/** Hands one mail to the outside world; throws when it could not. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

export function createSmtpMailer(smtpUrl: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html === null ? {} : { html: mail.html }),
        headers: mail.headers,
      });
    },
  };
}

/**
 * A local trial without SMTP_URL: each mail's recipient, subject and text go to the console, so a
 * person trying the product can follow a one-time code or a reset link.
 */
export function createConsoleMailer(
  write: (text: string) => void = (text) => process.stdout.write(text),
): Mailer {
  return {
    async send(mail) {
      write(`\n--- mail to ${mail.to}: ${mail.subject}\n${mail.text}\n--- end of mail\n`);
    },
  };
}

/** Where a recipient unsubscribes: the preferences page and the RFC 8058 one-click call. */
export interface UnsubscribeLinks {
  /** The visible link in the mail, e.g. `http://localhost:8080/unsubscribe?token=...`. */
  pageUrl: string;
  /** The List-Unsubscribe target that accepts `POST List-Unsubscribe=One-Click`. */
  oneClickUrl: string;
}

export interface EnqueueMailInput {
  tenantId: number | null;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  /**
   * Every mail to a tenant's address carries these (12 CFR 1006.6(e), RFC 8058). Null only for
   * mail to the provider's own admins, who belong to no tenant and so have no subscription.
   */
  unsubscribe: UnsubscribeLinks | null;
}

export interface MailService {
  /** Stores the mail in the outbox (so it is never lost) and starts its delivery. Returns its id. */
  enqueueMail(input: EnqueueMailInput): Promise<number>;
  /**
   * The outbox insert of one mail, not yet run: for a caller that writes it in the statement of
   * what the mail belongs to (a sign-in and its code), so both commit together in one round trip.
   * The caller starts the delivery with `deliverSoon` once the statement has run.
   */
  insertOf(input: EnqueueMailInput, where?: StatementPart): StatementPart;
  /** Starts delivering what is due, without waiting for it. */
  deliverSoon(): void;
  /** Sends what is due; failures stay in the outbox with a later next attempt. Returns how many were sent. */
  deliverPending(): Promise<number>;
  /** Resolves when the delivery started by the last enqueue has finished (tests wait on it). */
  idle(): Promise<void>;
  startRetries(intervalMs?: number): void;
  stop(): void;
}

/**
 * The opt-out under every mail to a tenant's address. The product only mails what a person asked
 * for (codes, reset links), which unsubscribing does not stop; it stops the organization's other mail.
 */
export const mailTexts = {
  optOutText:
    'This email was sent because you asked for it, and such emails still come after you unsubscribe. To stop the other emails we send to this address, open this link:',
  optOutHtml: 'Unsubscribe from our other emails',
} as const;

const escapeHtml = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The claim on a row while one instance sends it, so two instances never send the same mail. */
const leaseMs = 5 * 60_000;
const maxBackoffMs = 60 * 60_000;
const batchSize = 20;

export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), maxBackoffMs);
}

export function createMailService(deps: {
  db: Database;
  config: Pick<Config, 'mailFrom'>;
  clock: Clock;
  mailer: Mailer;
  onError?: (error: unknown) => void;
}): MailService {
  const { db, config, clock, mailer } = deps;
  let running: Promise<number> = Promise.resolve(0);
  let timer: NodeJS.Timeout | undefined;

  /**
   * Sends what is due, batch by batch, in order, each batch claimed for a lease. A batch's sent
   * mails are marked together once it is through, so the codes of a mailing day keep up with the
   * sign-ins; a crash mid-batch sends that batch's sent mails again after the lease.
   */
  async function deliverPending(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = clock.now();
      const batch = await claimDueMail(db, {
        now,
        leaseUntil: new Date(now.getTime() + leaseMs),
        limit: batchSize,
      });
      if (batch.length === 0) return sent;
      const sentIds: number[] = [];
      for (const row of batch) {
        try {
          await mailer.send({
            from: config.mailFrom,
            to: row.toAddress,
            subject: row.subject,
            text: row.textBody,
            html: row.htmlBody,
            headers: row.headers,
          });
          sentIds.push(row.id);
        } catch (error) {
          const attempts = row.attempts + 1;
          await markOutboxMailFailed(db, row.id, {
            attempts,
            lastError: error instanceof Error ? error.message : String(error),
            nextAttemptAt: new Date(clock.now().getTime() + retryDelayMs(attempts)),
          });
        }
      }
      await markOutboxMailSent(db, sentIds, clock.now());
      sent += sentIds.length;
    }
  }

  function outboxRow(input: EnqueueMailInput): NewOutboxMail {
    const links = input.unsubscribe;
    const text =
      links === null ? `${input.text}\n` : `${input.text}\n\n${mailTexts.optOutText} ${links.pageUrl}\n`;
    const htmlOptOut =
      links === null ? '' : `\n<p><a href="${escapeHtml(links.pageUrl)}">${mailTexts.optOutHtml}</a></p>`;
    const html = input.html === undefined || input.html === null ? null : `${input.html}${htmlOptOut}`;
    const headers: Record<string, string> =
      links === null
        ? {}
        : {
            'List-Unsubscribe': `<${links.oneClickUrl}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          };
    const now = clock.now();
    return {
      tenantId: input.tenantId,
      toAddress: input.to,
      subject: input.subject,
      textBody: text,
      htmlBody: html,
      headers,
      createdAt: now,
      nextAttemptAt: now,
    };
  }

  /** A delivery is waiting for the running one: later kicks are covered by it. */
  let deliveryQueued = false;
  const startQueuedDelivery = () => {
    deliveryQueued = false;
    return deliverPending();
  };
  const kick = () => {
    if (deliveryQueued) return;
    deliveryQueued = true;
    running = running.then(startQueuedDelivery, startQueuedDelivery).catch((error: unknown) => {
      deps.onError?.(error);
      return 0;
    });
  };

  return {
    async enqueueMail(input) {
      const id = await insertOutboxMail(db, outboxRow(input));
      kick();
      return id;
    },
    insertOf(input, where) {
      return outboxMailInsert(outboxRow(input), where);
    },
    deliverSoon: kick,
    deliverPending,
    async idle() {
      await running;
    },
    startRetries(intervalMs = 30_000) {
      timer ??= setInterval(kick, intervalMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
