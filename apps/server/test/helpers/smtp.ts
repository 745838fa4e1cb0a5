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

/** Enough MIME for the product's single-part text mails (7bit or quoted-printable). */
export function parseMail(raw: string, to: string[]): ReceivedMail {
  const split = raw.search(/\r?\n\r?\n/);
  const headerBlock = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of headerBlock.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  const text = encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : body;
  return { to, headers, subject: headers.get('subject') ?? '', text: text.replace(/\r\n/g, '\n') };
}

/** A real SMTP server on a free local port: the app sends through nodemailer, the test reads. */
export async function startSmtpServer(): Promise<{
  url: string;
  mails: ReceivedMail[];
  waitForMail(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((address) => address.address);
        mails.push(parseMail(Buffer.concat(chunks).toString('utf8'), to));
        for (const wake of waiters.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitForMail(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.find(predicate);
        if (found !== undefined) return found;
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error('no matching mail arrived');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
