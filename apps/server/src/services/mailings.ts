import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import {
  type IdentityTokenData,
  type MailingSummary,
  mailingNameSchema,
  parseIsoDate,
  parseTargetCode,
  portalOrigin,
  type SignInType,
  signInTypes,
  type TargetCode,
  validatorMessages,
  validators,
  verificationFieldsFor,
} from '@entry/domain';
import { stringify } from 'csv-stringify/sync';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { refuse } from '../refusals.ts';
import { generateShortId } from '../stores/identity-token-ids.ts';
import {
  issueMailing,
  type MailingIssue,
  mailingsOfTenant,
  type NewMailingToken,
  revokeMailingTokens,
} from '../stores/identity-tokens.ts';
import type { AuditLog } from './audit.ts';
import type { ChangeAuthor } from './consumer-import.ts';
import {
  type ColumnSpec,
  type CsvRow,
  importFileMessages,
  ProblemList,
  readCsvRows,
} from './consumer-import-csv.ts';
import { endingDepsOf, recordEndings, type SessionLimits } from './session-endings.ts';
import type { Tenant } from './tenants.ts';

/**
 * Letter links for a mailing: one identity token per row of the operator's CSV, written back as a
 * CSV with each consumer's full link and, for tokens that need verification, a short link. The
 * tokens of a mailing carry its name, so the whole mailing can be revoked at once.
 */

const linkColumns = [
  { name: 'consumerId', required: true, aliases: ['id', 'consumer'] },
  { name: 'signInType', required: true },
  { name: 'target', required: false, aliases: ['targetCode'] },
  { name: 'targetId', required: false },
  { name: 'expiresAt', required: true, aliases: ['expiry', 'expires'] },
  { name: 'paymentAmount', required: false },
  { name: 'schedulePaymentAmount', required: false },
  { name: 'scheduleDownPayment', required: false },
  { name: 'scheduleInterval', required: false },
] as const satisfies readonly ColumnSpec<string>[];

type LinkColumn = (typeof linkColumns)[number]['name'];

const linkOutputColumns = [
  'consumerId',
  'signInType',
  'token',
  'shortId',
  'link',
  'shortLink',
  'expiresAt',
] as const;

const mailingMessages = {
  signInType: `The sign-in type must be one of ${signInTypes.join(', ')}.`,
  target: 'The target must be a target code from 0 to 7.',
  targetIdWithoutTarget: 'A target id needs a target code in the target column.',
  targetId: 'The target id must have at most 100 characters.',
  expiresAt:
    'Enter the expiry as an ISO date (YYYY-MM-DD, valid through that day) or date-time with a time zone.',
  expiresInPast: 'The expiry must be in the future.',
  amount: validatorMessages.decimal,
  scheduleInterval: 'The schedule interval must have at most 50 characters.',
  unknownConsumer: 'The tenant has no consumer with this id; import the consumers first.',
  missingVerification: (signInType: SignInType, fields: readonly string[]) =>
    `A ${signInType} link needs the consumer's ${fields.join(', ')} on file, and it is missing.`,
} as const;

/** Rows per INSERT statement. */
const linkBatchSize = 1000;

const targetIdLength = validators.lengthRange(1, 100);
const intervalLength = validators.lengthRange(1, 50);
const dayMs = 86_400_000;

function assertMailingName(name: string): void {
  if (!mailingNameSchema.safeParse(name).success) throw refuse('invalidMailingName');
}

/** `mailing-20250101-120000`: a name for a mailing the operator did not name. */
export function defaultMailingName(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `mailing-${stamp}`;
}

interface LinkRequest {
  line: number;
  consumerId: string;
  signInType: SignInType;
  target: TargetCode | null;
  targetId: string | null;
  expiresAt: Date;
  data: IdentityTokenData | null;
  columnOf: Record<LinkColumn, number>;
}

function canonicalSignInType(text: string): SignInType | null {
  return signInTypes.find((type) => type.toLowerCase() === text.toLowerCase()) ?? null;
}

/** A date means "valid through that day" in UTC; a date-time is taken as given. */
function parseExpiry(text: string): Date | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const start = parseIsoDate(`${text}T00:00:00Z`);
    return start === null ? null : new Date(start.getTime() + dayMs);
  }
  return /[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? parseIsoDate(text) : null;
}

function toLinkRequest(row: CsvRow<LinkColumn>, now: Date, problems: ProblemList): LinkRequest | null {
  const { values, line, columnOf } = row;
  let valid = true;
  const problem = (field: LinkColumn, message: string) => {
    problems.add({ line, column: columnOf[field], field, message });
    valid = false;
  };
  if (values.consumerId === '') problem('consumerId', importFileMessages.required);

  const signInType = canonicalSignInType(values.signInType);
  if (values.signInType === '') problem('signInType', importFileMessages.required);
  else if (signInType === null) problem('signInType', mailingMessages.signInType);

  const target = values.target === '' ? null : parseTargetCode(values.target);
  if (values.target !== '' && target === null) problem('target', mailingMessages.target);
  const targetId = values.targetId === '' ? null : values.targetId;
  if (targetId !== null && values.target === '') problem('targetId', mailingMessages.targetIdWithoutTarget);
  else if (targetId !== null && targetIdLength(targetId) !== null)
    problem('targetId', mailingMessages.targetId);

  const expiresAt = parseExpiry(values.expiresAt);
  if (values.expiresAt === '') problem('expiresAt', importFileMessages.required);
  else if (expiresAt === null) problem('expiresAt', mailingMessages.expiresAt);
  else if (expiresAt.getTime() <= now.getTime()) problem('expiresAt', mailingMessages.expiresInPast);

  const amounts = {} as Record<
    'paymentAmount' | 'schedulePaymentAmount' | 'scheduleDownPayment',
    number | null
  >;
  for (const field of ['paymentAmount', 'schedulePaymentAmount', 'scheduleDownPayment'] as const) {
    const text = values[field];
    if (validators.decimal(text) !== null) problem(field, mailingMessages.amount);
    amounts[field] = text === '' ? null : Number(text);
  }
  const scheduleInterval = values.scheduleInterval === '' ? null : values.scheduleInterval;
  if (scheduleInterval !== null && intervalLength(scheduleInterval) !== null) {
    problem('scheduleInterval', mailingMessages.scheduleInterval);
  }

  if (!valid || signInType === null || expiresAt === null) return null;
  const hasData = Object.values(amounts).some((amount) => amount !== null) || scheduleInterval !== null;
  return {
    line,
    consumerId: values.consumerId,
    signInType,
    target,
    targetId,
    expiresAt,
    data: hasData ? { ...amounts, scheduleInterval } : null,
    columnOf,
  };
}

/** `{scheme}://{subdomain}.{domain}{:port}/{token}[/{target}[/{targetId}]]`, the link a letter prints. */
function letterLink(
  origin: string,
  token: string,
  target: TargetCode | null,
  targetId: string | null,
): string {
  let link = `${origin}/${token}`;
  if (target !== null) link += `/${target}`;
  if (target !== null && targetId !== null) link += `/${encodeURIComponent(targetId)}`;
  return link;
}

/** A token about to be issued, with the row it answers. */
interface TokenIssue {
  request: LinkRequest;
  token: NewMailingToken;
}

async function write(output: Writable, text: string): Promise<void> {
  if (!output.write(text)) await once(output, 'drain');
}

export interface IssueLinksInput {
  tenant: Tenant;
  mailing: string;
  file: Readable;
  config: Config;
  clock: Clock;
}

export interface IssueLinksResult {
  mailing: string;
  issued: number;
}

/**
 * Issues one identity token per row inside one transaction: any problem anywhere (a bad value, an
 * unknown consumer, a consumer without the verification value the sign-in type needs) writes
 * nothing; what went to `output` then is to be thrown away.
 */
export async function issueLinksTo(
  db: Database,
  input: IssueLinksInput,
  output: Writable,
): Promise<IssueLinksResult> {
  const { tenant, mailing, config, clock } = input;
  assertMailingName(mailing);
  const now = clock.now();
  const origin = portalOrigin({
    scheme: config.publicScheme,
    subdomain: tenant.subdomain,
    domain: config.publicDomain,
    port: config.publicPort,
  });
  const problems = new ProblemList();
  let issued = 0;

  const issueBatch = async (writes: MailingIssue, batch: LinkRequest[]) => {
    const onFile = await writes.consumersOnFile(batch.map((request) => request.consumerId));
    const issues: TokenIssue[] = [];
    for (const request of batch) {
      const consumer = onFile.get(request.consumerId);
      if (consumer === undefined) {
        problems.add({
          line: request.line,
          column: request.columnOf.consumerId,
          field: 'consumerId',
          message: mailingMessages.unknownConsumer,
        });
        continue;
      }
      if (request.signInType !== 'Direct') {
        const missing = verificationFieldsFor(request.signInType).filter((field) => !consumer[field]);
        if (missing.length > 0) {
          problems.add({
            line: request.line,
            column: request.columnOf.signInType,
            field: 'signInType',
            message: mailingMessages.missingVerification(request.signInType, missing),
          });
          continue;
        }
      }
      issues.push({
        request,
        token: {
          guid: randomUUID(),
          // A short code a person can type must never sign anyone in by itself: none for Direct.
          shortId: request.signInType === 'Direct' ? null : generateShortId(),
          consumerId: consumer.id,
          signInType: request.signInType,
          data: request.data,
          expiresAt: request.expiresAt,
        },
      });
    }
    if (!problems.isEmpty) return;
    await writes.insertTokens(issues.map((issue) => issue.token));
    const lines = issues.map(({ request, token: { guid, shortId } }) => [
      request.consumerId,
      request.signInType,
      guid,
      shortId ?? '',
      letterLink(origin, guid, request.target, request.targetId),
      shortId === null ? '' : `${origin}/${shortId}`,
      request.expiresAt.toISOString(),
    ]);
    await write(output, stringify(lines));
    issued += issues.length;
  };

  await write(output, stringify([[...linkOutputColumns]]));
  const written = await issueMailing(db, { tenantId: tenant.customerId, mailing, now }, async (writes) => {
    let batch: LinkRequest[] = [];
    for await (const row of readCsvRows(input.file, linkColumns, problems)) {
      const request = toLinkRequest(row, now, problems);
      if (request === null) continue;
      batch.push(request);
      if (batch.length >= linkBatchSize) {
        await issueBatch(writes, batch);
        batch = [];
      }
    }
    if (batch.length > 0) await issueBatch(writes, batch);
    problems.throwIfAny();
  });
  if (written === 'otherTenant') throw refuse('mailingOfOtherTenant', mailing);
  return { mailing, issued };
}

/** `issueLinksTo` a file: written beside `outPath` first, moved there only when all is well. */
export async function issueLinks(
  db: Database,
  input: IssueLinksInput & { outPath: string },
): Promise<IssueLinksResult> {
  const partialPath = `${input.outPath}.partial-${process.pid}`;
  const output = createWriteStream(partialPath, { encoding: 'utf8', mode: 0o600 });
  // Kept, not thrown from an event: the failure surfaces where the work is awaited.
  let outputError: Error | undefined;
  output.on('error', (error) => {
    outputError ??= error;
  });
  try {
    const result = await issueLinksTo(db, input, output);
    output.end();
    if (outputError === undefined) await once(output, 'finish');
    if (outputError !== undefined) throw outputError;
    await rename(partialPath, input.outPath);
    return result;
  } catch (error) {
    output.destroy();
    await rm(partialPath, { force: true });
    throw error;
  }
}

/** Revokes every token of a mailing that is not revoked yet; returns how many it revoked. */
async function revokeMailing(
  db: Database,
  clock: Clock,
  mailing: string,
): Promise<{ revoked: number; tenantId: number | null }> {
  assertMailingName(mailing);
  const revoked = await revokeMailingTokens(db, mailing, clock.now());
  if (revoked === undefined) throw refuse('mailingNotFound', mailing);
  return revoked;
}

/** The audit row of a mailing's links issued, by the operator command or the console. */
export function recordLinksIssued(
  audit: AuditLog,
  tenantId: number,
  result: IssueLinksResult,
  author: ChangeAuthor,
): Promise<void> {
  return audit.record({
    event: 'operator.links.issue',
    outcome: 'success',
    actor: author.actor,
    tenantId,
    ip: author.ip,
    detail: { ...result },
  });
}

/** Revokes a mailing, audits it, and ends and audits the sessions its links opened. */
export async function revokeMailingAudited(
  deps: { db: Database; clock: Clock; audit: AuditLog; config: SessionLimits },
  mailing: string,
  author: ChangeAuthor,
): Promise<{ revoked: number; tenantId: number | null }> {
  const result = await revokeMailing(deps.db, deps.clock, mailing);
  await deps.audit.record({
    event: 'operator.links.revoke',
    outcome: 'revoked',
    actor: author.actor,
    tenantId: result.tenantId,
    ip: author.ip,
    detail: { mailing, revoked: result.revoked },
  });
  // Every call already refuses the links' sessions; this records each ending with its cause.
  await recordEndings(endingDepsOf(deps), { mailing }, author.ip);
  return result;
}

/** A tenant's mailings, newest first, with how many links each has and how many still work. */
export async function listMailings(db: Database, clock: Clock, tenantId: number): Promise<MailingSummary[]> {
  const rows = await mailingsOfTenant(db, tenantId, clock.now());
  return rows.map((row) => ({
    mailing: row.mailing,
    links: row.links,
    liveLinks: row.liveLinks,
    revokedLinks: row.revokedLinks,
    issuedAt: row.issuedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  }));
}
