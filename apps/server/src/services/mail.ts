import { debtCollectorDisclosure, type Language } from '@entry/domain';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { MailEvidence } from '../db/schema.ts';
import {
  claimDueMail,
  deleteUnsentOutboxMail,
  insertOutboxMail,
  mailPriority,
  markOutboxMailFailed,
  markOutboxMailSent,
  type NewOutboxMail,
  type OutboxMail,
  unsentMailBacklog,
} from '../stores/mail-outbox.ts';
import type { AuditLog } from './audit.ts';
import { escapeHtml } from './html.ts';
import { keyedHash } from './keyed-hash.ts';
import { mailTexts } from './mail-texts.ts';
import { type Mailer, type MailReceipt, mailsInFlight, sendLimitMs } from './mail-transports.ts';
import { normaliseEmailAddress } from './subscriptions-token.ts';

/** Where a recipient unsubscribes: the preferences page and the RFC 8058 one-click call. */
export interface UnsubscribeLinks {
  /** The visible link in the mail, e.g. `http://localhost:8080/unsubscribe?token=...`. */
  pageUrl: string;
  /** The List-Unsubscribe target that accepts `POST List-Unsubscribe=One-Click`. */
  oneClickUrl: string;
}

export interface EnqueueMailInput {
  /** What the mail is for, kept in the audit row of its sending: e.g. `consumer-code`, `staff-reset`. */
  kind: string;
  /** The language its texts are in; English when not given. Its opt-out line follows it. */
  language?: Language;
  /** Adds the debt-collector line (12 CFR 1006.18(e)): consumer mail of an organization that collects debts. */
  debtCollector?: boolean;
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
  /** When what the mail carries stops working (a one-time code, a reset link): from then on it is dropped unsent. */
  expiresAt?: Date;
}

/** A consumer's one-time code: the one kind that leaves the outbox ahead of every other mail, retries included. */
export const oneTimeCodeMailKind = 'consumer-code';

export interface MailService {
  /** Stores the mail in the outbox (so it is never lost) and starts its delivery. Returns its id. */
  enqueueMail(input: EnqueueMailInput): Promise<number>;
  /**
   * The outbox row of one mail, not yet written: for a caller whose store writes it in the
   * statement of what the mail belongs to (a sign-in and its code), so both commit together in one
   * round trip. The caller starts the delivery with `deliverSoon` once the statement has run.
   */
  rowOf(input: EnqueueMailInput): NewOutboxMail;
  /** Starts delivering what is due, without waiting for it. */
  deliverSoon(): void;
  /**
   * Sends what is due; failures stay in the outbox with a later next attempt, expired mail is
   * dropped. Returns how many this instance sent meanwhile.
   */
  deliverPending(): Promise<number>;
  /** How many mails wait unsent, and how long the oldest has waited, in seconds. */
  backlog(): Promise<{ unsent: number; oldestUnsentSeconds: number }>;
  /** Resolves once nothing is being claimed or sent (tests wait on it, and so does shutdown). */
  idle(): Promise<void>;
  /** Delivers what is due now, then looks again every `intervalMs` (by default the SMTP timeout). */
  startRetries(intervalMs?: number): void;
  /** Claims nothing more; the sends in flight go on (`idle` waits for them). */
  stop(): void;
}

const maxBackoffMs = 60 * 60_000;

function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), maxBackoffMs);
}

/**
 * The outbox row of a mail: the debt-collector line where asked, the opt-out line and headers where
 * it has unsubscribe links, both in the mail's language, and the evidence of what it carries.
 */
function outboxRowOf(input: EnqueueMailInput, now: Date): NewOutboxMail {
  const links = input.unsubscribe;
  const language = input.language ?? 'en';
  const texts = mailTexts[language];
  const disclosure = input.debtCollector === true ? debtCollectorDisclosure[language] : null;
  const body = disclosure === null ? input.text : `${input.text}\n\n${disclosure}`;
  const text = links === null ? `${body}\n` : `${body}\n\n${texts.optOutText} ${links.pageUrl}\n`;
  const htmlDisclosure = disclosure === null ? '' : `\n<p>${escapeHtml(disclosure)}</p>`;
  const htmlOptOut =
    links === null ? '' : `\n<p><a href="${escapeHtml(links.pageUrl)}">${texts.optOutHtml}</a></p>`;
  const html =
    input.html === undefined || input.html === null ? null : `${input.html}${htmlDisclosure}${htmlOptOut}`;
  const headers: Record<string, string> =
    links === null
      ? {}
      : {
          'List-Unsubscribe': `<${links.oneClickUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        };
  return {
    tenantId: input.tenantId,
    toAddress: input.to,
    subject: input.subject,
    textBody: text,
    htmlBody: html,
    headers,
    createdAt: now,
    nextAttemptAt: now,
    expiresAt: input.expiresAt ?? null,
    evidence: { kind: input.kind, language, optOutLink: links !== null, disclosure: disclosure !== null },
    priority: input.kind === oneTimeCodeMailKind ? mailPriority.oneTimeCode : mailPriority.usual,
  };
}

/** The keyed hash of a recipient in the audit trail: who got a mail can be checked, never read off. */
export function recipientHash(pepper: string, address: string): string {
  return keyedHash(pepper, `mail-recipient:${normaliseEmailAddress(address)}`);
}

/**
 * The `mail.sent` audit row of a mail its transport took: the evidence of what it was and carried
 * (12 CFR 1006.100). Mail queued before the evidence was kept tells only what its headers show.
 */
function mailSentEntry(row: OutboxMail, messageId: string | null, pepper: string) {
  const evidence: Partial<MailEvidence> = row.evidence ?? {};
  return {
    event: 'mail.sent',
    outcome: 'success',
    tenantId: row.tenantId,
    detail: {
      mailId: row.id,
      kind: evidence.kind ?? null,
      language: evidence.language ?? null,
      recipientHash: recipientHash(pepper, row.toAddress),
      messageId,
      optOutLink: evidence.optOutLink ?? null,
      listUnsubscribe: row.headers['List-Unsubscribe'] !== undefined,
      disclosure: evidence.disclosure ?? null,
    },
  } as const;
}

/**
 * Stores a mail in the outbox without delivering it: for an operator command, whose process ends
 * before a send would; the server's deliveries take it from there.
 */
export async function queueMail(db: Database, input: EnqueueMailInput, now: Date): Promise<void> {
  await insertOutboxMail(db, outboxRowOf(input, now));
}

/**
 * Delivers the outbox: claims only as many due mails as it has free places, for a lease that
 * outlasts the longest send, and marks each mail sent as soon as its server took it. A crashed
 * instance thus leaves at most the mails it had in flight claimed, and only those may go twice.
 */
export function createMailService(deps: {
  db: Database;
  config: Pick<Config, 'mailFrom' | 'smtpTimeoutSeconds'>;
  clock: Clock;
  mailer: Mailer;
  audit: AuditLog;
  /** The key of the recipients' hashes in the audit rows of sent mail (`KBA_PEPPER`). */
  pepper: string;
  onError?: (error: unknown) => void;
  /** Hears each mail its SMTP server did not accept (it stays for a later attempt). */
  onSendFailed?: () => void;
  /** Mails dropped unsent because what they carried had expired (their audit rows are written). */
  onDropped?: (mails: readonly OutboxMail[]) => void;
}): MailService {
  const { db, config, clock, mailer, audit } = deps;
  const smtpTimeoutMs = config.smtpTimeoutSeconds * 1000;
  // Longer than any send, so no instance takes over a mail still in flight; short, so the claims
  // of an instance that died come back within a minute.
  const leaseMs = sendLimitMs(smtpTimeoutMs) + 2 * smtpTimeoutMs;
  const report = (error: unknown) => deps.onError?.(error);
  const sending = new Set<Promise<void>>();
  let claiming: Promise<void> | undefined;
  let claimAgain = false;
  let stopped = false;
  let sentCount = 0;
  let timer: NodeJS.Timeout | undefined;

  async function sendClaimed(row: OutboxMail): Promise<void> {
    let receipt: MailReceipt | undefined;
    try {
      receipt =
        (await mailer.send({
          from: config.mailFrom,
          to: row.toAddress,
          subject: row.subject,
          text: row.textBody,
          html: row.htmlBody,
          headers: row.headers,
        })) ?? undefined;
    } catch (error) {
      deps.onSendFailed?.();
      const attempts = row.attempts + 1;
      await markOutboxMailFailed(db, row.id, {
        attempts,
        lastError: error instanceof Error ? error.message : String(error),
        nextAttemptAt: new Date(clock.now().getTime() + retryDelayMs(attempts)),
      });
      return;
    }
    await markOutboxMailSent(db, {
      id: row.id,
      at: clock.now(),
      auditRow: audit.rowOf(mailSentEntry(row, receipt?.messageId ?? null, deps.pepper)),
    });
    sentCount += 1;
  }

  function startSending(row: OutboxMail): void {
    const finished = () => {
      sending.delete(send);
      fill();
    };
    const send: Promise<void> = sendClaimed(row).then(finished, (error: unknown) => {
      report(error);
      finished();
    });
    sending.add(send);
  }

  /** Deletes mails whose content expired before they could go, each with its audit row. */
  async function dropExpired(rows: readonly OutboxMail[]): Promise<void> {
    const audited = rows.map((row) =>
      audit.rowOf({
        event: 'mail.dropped',
        outcome: 'failure',
        tenantId: row.tenantId,
        detail: {
          mailId: row.id,
          reason: 'expired',
          to: row.toAddress,
          subject: row.subject,
          expiresAt: row.expiresAt?.toISOString(),
          attempts: row.attempts,
          lastError: row.lastError,
        },
      }),
    );
    await deleteUnsentOutboxMail(
      db,
      rows.map((row) => row.id),
      audited,
    );
    deps.onDropped?.(rows);
  }

  /** Claims due mails into the free places until none is free, nothing is due, or nobody asks again. */
  async function claimWhileDue(): Promise<void> {
    // The sends that finish in this turn free their places first: one claim then fills them all.
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      claimAgain = false;
      const free = mailsInFlight - sending.size;
      if (free <= 0 || stopped) return;
      const now = clock.now();
      const claimed = await claimDueMail(db, {
        now,
        leaseUntil: new Date(now.getTime() + leaseMs),
        limit: free,
      });
      const expired = claimed.filter((row) => row.expiresAt !== null && row.expiresAt <= now);
      for (const row of claimed) if (!expired.includes(row)) startSending(row);
      if (expired.length > 0) await dropExpired(expired);
      if (claimed.length < free && !claimAgain) return;
    }
  }

  /** Starts claiming; while a claim runs, it claims once more when it is done instead. */
  function fill(): void {
    if (stopped) return;
    if (claiming !== undefined) {
      claimAgain = true;
      return;
    }
    claiming = claimWhileDue()
      .catch((error: unknown) => {
        // Left to the next retry: claiming again at once would spin while the database is away.
        claimAgain = false;
        report(error);
      })
      .finally(() => {
        claiming = undefined;
        if (claimAgain) fill();
      });
  }

  async function idle(): Promise<void> {
    while (claiming !== undefined || sending.size > 0) await Promise.allSettled([claiming, ...sending]);
  }

  return {
    async enqueueMail(input) {
      const id = await insertOutboxMail(db, outboxRowOf(input, clock.now()));
      fill();
      return id;
    },
    rowOf(input) {
      return outboxRowOf(input, clock.now());
    },
    deliverSoon: fill,
    async deliverPending() {
      const before = sentCount;
      fill();
      await idle();
      return sentCount - before;
    },
    async backlog() {
      const { unsent, oldestCreatedAt } = await unsentMailBacklog(db);
      const waitedMs = oldestCreatedAt === null ? 0 : clock.now().getTime() - oldestCreatedAt.getTime();
      return { unsent, oldestUnsentSeconds: Math.max(0, waitedMs / 1000) };
    },
    idle,
    startRetries(intervalMs = smtpTimeoutMs) {
      timer ??= setInterval(fill, intervalMs);
      timer.unref();
      fill();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
