import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  headers: Map<string, string>;
  subject: string;
  text: string;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = Buffer.from(
    body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  );
  return bytes.toString('utf8');
}

/** A header's RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`), as a Spanish subject comes. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

/** Enough MIME for the product's single-part text mails (7bit, quoted-printable or base64). */
function parseMail(raw: string, to: string[]): ReceivedMail {
  const split = raw.search(/\r?\n\r?\n/);
  const headerBlock = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of headerBlock.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  let text = body;
  if (encoding === 'quoted-printable') text = decodeQuotedPrintable(body);
  else if (encoding === 'base64') text = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  const subject = decodeEncodedWords(headers.get('subject') ?? '');
  return { to, headers, subject, text: text.replace(/\r\n/g, '\n') };
}

/** How the test's SMTP server treats what comes in; by default it greets everyone and takes every mail. */
export interface SmtpServerBehaviour {
  /** False leaves the new connection without a greeting, as a server that accepts and then hangs. */
  greets?(): boolean;
  /**
   * What becomes of a mail whose content has arrived: `accept` keeps it and says so;
   * `keep-unanswered` keeps it and never answers, so its sender cannot know it went;
   * `leave-unanswered` neither keeps it nor answers.
   */
  receives?(mail: ReceivedMail): 'accept' | 'keep-unanswered' | 'leave-unanswered';
}

/** A real SMTP server on a free local port: the app sends through nodemailer, the test reads. */
export async function startSmtpServer(behaviour: SmtpServerBehaviour = {}): Promise<{
  url: string;
  mails: ReceivedMail[];
  /** The open connections the server leaves waiting: never greeted, or with a mail unanswered. */
  waiting(): number;
  waitForMail(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Resolves once `check` holds, checked again whenever a mail arrives or a connection waits or closes. */
  waitUntil(check: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const waitingSessions = new Set<string>();
  const waiters: (() => void)[] = [];
  const changed = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onConnect(session, callback) {
      if (behaviour.greets?.() === false) {
        waitingSessions.add(session.id);
        changed();
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((address) => address.address);
        const mail = parseMail(Buffer.concat(chunks).toString('utf8'), to);
        const fate = behaviour.receives?.(mail) ?? 'accept';
        if (fate !== 'leave-unanswered') mails.push(mail);
        if (fate === 'accept') callback();
        else waitingSessions.add(session.id);
        changed();
      });
    },
    onClose(session) {
      if (waitingSessions.delete(session.id)) changed();
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('the SMTP server never got there');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waiting: () => waitingSessions.size,
    async waitForMail(predicate, timeoutMs = 10_000) {
      await waitUntil(() => mails.some(predicate), timeoutMs).catch(() => {
        throw new Error('no matching mail arrived');
      });
      return mails.find(predicate) as ReceivedMail;
    },
    waitUntil,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
