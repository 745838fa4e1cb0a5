import type { StatementPart } from '../db/sql.ts';
import { auditRowInsert, type NewAuditRow } from './audit-log.ts';
import { mfaCodeInsert, type StoredCode } from './mfa-codes.ts';
import { type NewSessionRow, type StoredRefreshToken, sessionInserts } from './sessions.ts';

/**
 * The rows a service hands a store to write in the statement of what they belong to (a sign-in's
 * session, its first code, their audit rows): plain data, made statements only here, in the
 * order the rows depend on each other (a code names its session).
 */
export interface RowWrites {
  sessions?: readonly { row: NewSessionRow; refreshToken: StoredRefreshToken }[];
  mfaCodes?: readonly StoredCode[];
  auditRows?: readonly NewAuditRow[];
}

export function statementsOfRows(writes: RowWrites | undefined): StatementPart[] {
  if (writes === undefined) return [];
  return [
    ...(writes.sessions ?? []).flatMap(({ row, refreshToken }) => sessionInserts(row, refreshToken)),
    ...(writes.mfaCodes ?? []).map(mfaCodeInsert),
    ...(writes.auditRows ?? []).map(auditRowInsert),
  ];
}
