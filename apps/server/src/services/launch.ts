import type { AuthTokenResult } from '@entry/domain';
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { type LaunchKind, launchTokens, staffUsers, tenants } from '../db/schema.ts';
import { executeRows } from '../db/sql.ts';
import { refuse } from '../refusals.ts';
import { endingCauseAtInstantsRow } from '../stores/sessions.ts';
import { endingInstants } from './session-endings.ts';
import { hashToken, randomToken } from './sessions.ts';
import { staffRoleIds } from './staff-roles.ts';

export const launchTokenLifetimeMs = 60_000;

/** An admin opens a customer's portal (or its dash billing): a single-use token valid 60 s. */
export async function createLaunchToken(
  ctx: AppContext,
  input: { adminId: number; adminSessionId: string; customerId: number; kind: LaunchKind; ip: string },
): Promise<string> {
  const [tenant] = await ctx.db
    .select({ id: tenants.id })
    .from(tenants)
    .where(eq(tenants.id, input.customerId));
  if (tenant === undefined) throw refuse('launchTenantNotFound');
  const token = randomToken();
  const now = ctx.clock.now();
  await ctx.db.insert(launchTokens).values({
    hash: hashToken(token),
    adminId: input.adminId,
    adminSessionId: input.adminSessionId,
    tenantId: tenant.id,
    kind: input.kind,
    createdAt: now,
    expiresAt: new Date(now.getTime() + launchTokenLifetimeMs),
  });
  await ctx.audit.record({
    event: `launch.${input.kind}`,
    outcome: 'success',
    actor: `admin:${input.adminId}`,
    tenantId: tenant.id,
    ip: input.ip,
  });
  return token;
}

/** The claimed token's row, as the claim returns it. */
interface ClaimedLaunch {
  admin_id: string;
  tenant_id: number;
  kind: LaunchKind;
  admin_session_id: string;
}

/**
 * Claims an unused, unexpired launch token whose admin session is live and whose admin is enabled:
 * a token dies with the admin session that made it (decision record 020). Only one request can
 * claim the token, even when several arrive at once.
 */
function claimLaunchToken(ctx: AppContext, hash: string, now: Date) {
  const instants = endingInstants(now, ctx.config.sessionMaxMinutes);
  return executeRows<ClaimedLaunch>(
    ctx.db,
    sql`WITH i AS (
        SELECT ${instants.now.toISOString()}::timestamptz AS now,
          ${instants.startedAfter.toISOString()}::timestamptz AS started_after,
          ${instants.pendingStartedAfter.toISOString()}::timestamptz AS pending_started_after
      )
      UPDATE launch_tokens SET used_at = (SELECT now FROM i)
      WHERE hash = ${hash} AND used_at IS NULL AND expires_at > (SELECT now FROM i)
        AND EXISTS (
          SELECT 1 FROM sessions s CROSS JOIN i JOIN staff_users u ON u.id = s.staff_user_id
          WHERE s.id = launch_tokens.admin_session_id AND s.revoked_at IS NULL AND NOT u.disabled
            AND (${endingCauseAtInstantsRow}) IS NULL
        )
      RETURNING admin_id::text AS admin_id, tenant_id, kind, admin_session_id::text AS admin_session_id`,
  );
}

/** Why a launch token found could not be claimed, for the audit row. */
async function refusalOf(ctx: AppContext, found: typeof launchTokens.$inferSelect, now: Date) {
  if (found.usedAt !== null) return 'used';
  if (found.expiresAt.getTime() <= now.getTime()) return 'expired';
  const [admin] = await ctx.db
    .select({ disabled: staffUsers.disabled })
    .from(staffUsers)
    .where(eq(staffUsers.id, found.adminId));
  return admin?.disabled === false ? 'launching-session-ended' : 'admin-disabled';
}

/** Exchanges a launch token for a customer session that records the admin who launched it. */
export async function signInWithLaunchToken(
  ctx: AppContext,
  token: string,
  ip: string,
): Promise<AuthTokenResult> {
  const hash = hashToken(token);
  const now = ctx.clock.now();
  const [found] = await ctx.db.select().from(launchTokens).where(eq(launchTokens.hash, hash));
  if (found === undefined) throw refuse('launchTokenNotFound');
  const [claimed] = await claimLaunchToken(ctx, hash, now);
  if (claimed === undefined) {
    await ctx.audit.record({
      event: 'customer.sign-in.launch',
      outcome: 'failure',
      actor: `admin:${found.adminId}`,
      tenantId: found.tenantId,
      ip,
      detail: { reason: await refusalOf(ctx, found, now) },
    });
    throw refuse('invalidLaunchToken');
  }
  const adminId = Number(claimed.admin_id);
  const result = await ctx.sessions.open({
    scope: 'customer',
    tenantId: claimed.tenant_id,
    accessType: 'Launched',
    hasRestrictedAccess: false,
    roleId: staffRoleIds.customer,
    launchedByAdminId: adminId,
    launchedBySessionId: claimed.admin_session_id,
  });
  await ctx.audit.record({
    event: 'customer.sign-in.launch',
    outcome: 'success',
    actor: `admin:${adminId}`,
    tenantId: claimed.tenant_id,
    ip,
    detail: {
      sessionId: result.sessionGuid,
      kind: claimed.kind,
      launchedBySessionId: claimed.admin_session_id,
    },
  });
  return result;
}
