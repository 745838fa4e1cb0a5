import type { LaunchKind } from '@entry/domain';
import { eq } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { launchTokens } from '../db/schema.ts';
import { executePart, sqlPart } from '../db/sql.ts';
import { endingCause, type GroundsAt, instant } from './session-endings.ts';

/** Admins' launch tokens: every statement on `launch_tokens`. */

export type LaunchToken = typeof launchTokens.$inferSelect;

export type NewLaunchToken = Omit<LaunchToken, 'usedAt'>;

export async function insertLaunchToken(db: Database, token: NewLaunchToken): Promise<void> {
  await db.insert(launchTokens).values(token);
}

export async function findLaunchToken(db: Database, hash: string): Promise<LaunchToken | undefined> {
  const [found] = await db.select().from(launchTokens).where(eq(launchTokens.hash, hash));
  return found;
}

/** A claimed token: who launched what, from which session. */
export interface ClaimedLaunch {
  adminId: number;
  tenantId: number;
  kind: LaunchKind;
  adminSessionId: string;
}

interface ClaimedLaunchRow {
  admin_id: string;
  tenant_id: number;
  kind: LaunchKind;
  admin_session_id: string;
}

/**
 * Claims an unused, unexpired launch token whose admin session is live (`endingCause` at
 * `grounds`) and whose admin is enabled: a token dies with the admin session that made it
 * (decision record 020). Only one request can claim the token, even when several arrive at once.
 */
export async function claimLaunchToken(
  db: Database,
  hash: string,
  grounds: GroundsAt,
): Promise<ClaimedLaunch | undefined> {
  const now = instant(grounds.now);
  const [row] = await executePart<ClaimedLaunchRow>(
    db,
    sqlPart`UPDATE launch_tokens SET used_at = ${now}
      WHERE hash = ${hash}::text AND used_at IS NULL AND expires_at > ${now}
        AND EXISTS (
          SELECT 1 FROM sessions s JOIN staff_users u ON u.id = s.staff_user_id
          WHERE s.id = launch_tokens.admin_session_id AND s.revoked_at IS NULL AND NOT u.disabled
            AND (${endingCause(grounds)}) IS NULL
        )
      RETURNING admin_id::text AS admin_id, tenant_id, kind, admin_session_id::text AS admin_session_id`,
  );
  return row === undefined
    ? undefined
    : {
        adminId: Number(row.admin_id),
        tenantId: row.tenant_id,
        kind: row.kind,
        adminSessionId: row.admin_session_id,
      };
}
