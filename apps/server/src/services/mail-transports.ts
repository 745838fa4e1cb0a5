/**
 * The transports that hand a mail to the outside world: SMTP, or the console in a local trial.
 * The outbox (mail.ts) decides what is sent and when.
 */
import type { Transporter } from 'nodemailer';
import { traced } from '../tracing.ts';

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  headers: Record<string, string>;
}

/** What the transport said when it took a mail: the SMTP server's message id, where it gave one. */
export interface MailReceipt {
  messageId: string | null;
}

/** Hands one mail to the outside world; throws when it could not. A transport with no id answers nothing. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<MailReceipt> | Promise<void>;
  /** Lets go of the connections it keeps, once nothing is being sent. */
  close?(): void;
}

/**
 * Mails sent at once by one instance, each over a connection of its own that the next mail reuses:
 * a server that hangs holds up only the mails it holds.
 */
export const mailsInFlight = 4;

/**
 * The longest one send may take: connecting, the greeting, then the rest of the conversation,
 * each bounded by the SMTP timeout, and the whole cut off after three of them whatever the server
 * does (a server answering a byte at a time never trips the idle timeout).
 */
export const sendLimitMs = (smtpTimeoutMs: number) => 3 * smtpTimeoutMs;

/** nodemailer is loaded with the first mail, so an instance without SMTP never holds it in memory. */
export function createSmtpMailer(smtpUrl: string, smtpTimeoutMs: number): Required<Mailer> {
  let transport: Promise<Transporter> | undefined;
  const transportOnce = () => {
    transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: smtpUrl,
        // Kept open for the next mail: a connection per mail kept a burst of codes waiting on handshakes (record 047).
        pool: true,
        maxConnections: mailsInFlight,
        connectionTimeout: smtpTimeoutMs,
        greetingTimeout: smtpTimeoutMs,
        socketTimeout: smtpTimeoutMs,
      }),
    );
    return transport;
  };
  const limitMs = sendLimitMs(smtpTimeoutMs);
  const smtpHost = new URL(smtpUrl).hostname;
  return {
    close() {
      void transport?.then((pool) => pool.close());
    },
    async send(mail) {
      const deadline = AbortSignal.timeout(limitMs);
      try {
        const info: { messageId?: unknown } = await traced(
          'smtp send',
          { 'server.address': smtpHost },
          async () =>
            (await transportOnce()).sendMail({
              from: mail.from,
              to: mail.to,
              subject: mail.subject,
              text: mail.text,
              ...(mail.html === null ? {} : { html: mail.html }),
              headers: mail.headers,
              signal: deadline,
            }),
        );
        return { messageId: typeof info.messageId === 'string' ? info.messageId : null };
      } catch (error) {
        if (deadline.aborted)
          throw new Error(`The SMTP server did not take the mail within ${limitMs / 1000} s`);
        throw error;
      }
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
