import type { Readable } from 'node:stream';
import { languageSchema, type VerificationField, validatorMessages, validators } from '@entry/domain';
import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import { type ImportedConsumer, inConsumerImport } from '../stores/consumers.ts';
import type { AuditLog } from './audit.ts';
import {
  type ColumnSpec,
  type CsvRow,
  importFileMessages,
  ProblemList,
  readCsvRows,
} from './consumer-import-csv.ts';
import { hashVerificationValue } from './keyed-hash.ts';

/**
 * Imports a tenant's consumers from CSV (consumer id, name, e-mail, last 4 of SSN, ZIP, date of
 * birth, and optionally the language of their letters). The whole file is one transaction: one bad value anywhere and nothing is written.
 * Verification values never reach the database in clear: they are keyed hashes from the start.
 */

const consumerColumns = [
  { name: 'consumerId', required: true, aliases: ['id', 'consumer'] },
  { name: 'name', required: true, aliases: ['fullName'] },
  { name: 'email', required: true, aliases: ['emailAddress'] },
  { name: 'last4Ssn', required: true, aliases: ['ssn', 'last4', 'ssnLast4'] },
  { name: 'postalCode', required: true, aliases: ['zip', 'zipCode'] },
  { name: 'dateOfBirth', required: true, aliases: ['dob', 'birthDate'] },
  { name: 'language', required: false, aliases: ['lang', 'preferredLanguage'] },
] as const satisfies readonly ColumnSpec<string>[];

type ConsumerColumn = (typeof consumerColumns)[number]['name'];

export const consumerImportMessages = {
  consumerId: 'The consumer id must have 1 to 64 characters.',
  name: 'The name must have 1 to 200 characters.',
  last4Ssn: 'Enter the last 4 digits of the SSN, or the full SSN such as 123-45-6789.',
  postalCode: 'Enter a 5-digit ZIP code, or ZIP+4 such as 90210-1234.',
  dateOfBirth: 'Enter the date of birth as YYYY-MM-DD, a real date that is not in the future.',
  language: "Enter en or es, or leave it empty (the organization's default language).",
  duplicate: (line: number) => `This consumer id is already on line ${line}.`,
} as const;

/** Rows per INSERT statement. */
const importBatchSize = 1000;

const consumerIdLength = validators.lengthRange(1, 64);
const nameLength = validators.lengthRange(1, 200);

export interface ConsumerImportResult {
  rows: number;
  created: number;
  updated: number;
}

function todayUtc(clock: Clock): string {
  return clock.now().toISOString().slice(0, 10);
}

/** The database row of a CSV row, or null after adding its problems. */
function toImportedConsumer(
  row: CsvRow<ConsumerColumn>,
  context: { pepper: string; today: string },
  problems: ProblemList,
): ImportedConsumer | null {
  const { values, line, columnOf } = row;
  let valid = true;
  const problem = (field: ConsumerColumn, message: string) => {
    problems.add({ line, column: columnOf[field], field, message });
    valid = false;
  };
  const required = (field: ConsumerColumn): boolean => {
    if (values[field] !== '') return true;
    problem(field, importFileMessages.required);
    return false;
  };

  if (required('consumerId') && consumerIdLength(values.consumerId) !== null) {
    problem('consumerId', consumerImportMessages.consumerId);
  }
  if (required('name') && nameLength(values.name) !== null) problem('name', consumerImportMessages.name);
  if (required('email') && validators.email(values.email) !== null) problem('email', validatorMessages.email);

  const language = values.language === '' ? null : languageSchema.safeParse(values.language.toLowerCase());
  if (language?.success === false) problem('language', consumerImportMessages.language);

  const hashes: Partial<Record<VerificationField, string>> = {};
  for (const field of ['last4Ssn', 'postalCode', 'dateOfBirth'] as const) {
    if (!required(field)) continue;
    const hash = hashVerificationValue(context.pepper, field, values[field]);
    const inFuture = field === 'dateOfBirth' && values[field] > context.today;
    if (hash === null || inFuture) problem(field, consumerImportMessages[field]);
    else hashes[field] = hash;
  }
  if (
    !valid ||
    hashes.last4Ssn === undefined ||
    hashes.postalCode === undefined ||
    hashes.dateOfBirth === undefined
  ) {
    return null;
  }
  return {
    consumer_id: values.consumerId,
    name: values.name,
    email: values.email,
    last4_ssn_hash: hashes.last4Ssn,
    postal_code_hash: hashes.postalCode,
    date_of_birth_hash: hashes.dateOfBirth,
    language: language?.data ?? null,
  };
}

/**
 * Streams the file, validating every row and writing in batches inside one transaction. Any
 * problem rolls everything back and is thrown as one InvalidImportFile refusal.
 */
async function importConsumers(
  db: Database,
  input: { tenantId: number; pepper: string; clock: Clock; file: Readable },
): Promise<ConsumerImportResult> {
  const problems = new ProblemList();
  const context = { pepper: input.pepper, today: todayUtc(input.clock) };
  const now = input.clock.now();
  return inConsumerImport(db, input.tenantId, now, async (writeBatch) => {
    const result: ConsumerImportResult = { rows: 0, created: 0, updated: 0 };
    const firstLineOf = new Map<string, number>();
    let batch: ImportedConsumer[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const counts = await writeBatch(batch);
      result.created += counts.created;
      result.updated += counts.updated;
      batch = [];
    };

    for await (const row of readCsvRows(input.file, consumerColumns, problems)) {
      result.rows += 1;
      const consumer = toImportedConsumer(row, context, problems);
      const id = row.values.consumerId;
      const firstLine = firstLineOf.get(id);
      if (firstLine !== undefined) {
        problems.add({
          line: row.line,
          column: row.columnOf.consumerId,
          field: 'consumerId',
          message: consumerImportMessages.duplicate(firstLine),
        });
      } else if (id !== '') {
        firstLineOf.set(id, row.line);
      }
      // After the first problem the file is only checked: nothing of it will be kept.
      if (consumer === null || !problems.isEmpty) continue;
      batch.push(consumer);
      if (batch.length >= importBatchSize) await flush();
    }
    problems.throwIfAny();
    await flush();
    return result;
  });
}

/** Who makes an operator's change, as its audit row names them, and from which address. */
export interface ChangeAuthor {
  actor: string;
  ip: string | null;
}

/** `importConsumers` and its audit row: the operator command and the console both import so. */
export async function importConsumersAudited(
  deps: { db: Database; pepper: string; clock: Clock; audit: AuditLog },
  input: { tenantId: number; file: Readable; author: ChangeAuthor },
): Promise<ConsumerImportResult> {
  const result = await importConsumers(deps.db, {
    tenantId: input.tenantId,
    pepper: deps.pepper,
    clock: deps.clock,
    file: input.file,
  });
  await deps.audit.record({
    event: 'operator.consumers.import',
    outcome: 'success',
    actor: input.author.actor,
    tenantId: input.tenantId,
    ip: input.author.ip,
    detail: { ...result },
  });
  return result;
}
