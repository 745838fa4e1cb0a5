import type { AuthTokenResult, LaunchKind } from '@entry/domain';
import { roleIdByScope } from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import {
  claimLaunchToken,
  findLaunchToken,
  insertLaunchToken,
  type LaunchToken,
} from '../stores/launch-tokens.ts';
import { findStaffUserById } from '../stores/staff-users.ts';
import { findTenantById } from '../stores/tenants.ts';
import { assertRecentSecondFactor } from './second-factors.ts';
import { hashToken, randomToken } from './secret-tokens.ts';
import { endingInstants } from './session-endings.ts';
import type { SessionPrincipal } from './sessions.ts';

const launchTokenLifetimeMs = 60_000;

/** An admin opens a customer's portal (or its dash billing): a single-use token valid 60 s. */
export async function createLaunchToken(
  ctx: AppContext,
  principal: SessionPrincipal,
  input: { customerId: number; kind: LaunchKind; ip: string },
): Promise<string> {
  if (principal.staffUserId === null) throw refuse('notAuthorized');
  // Opening another organization's portal needs a second factor shown lately (step-up).
  assertRecentSecondFactor(ctx, principal);
  const adminId = principal.staffUserId;
  const tenant = await findTenantById(ctx.db, input.customerId);
  if (tenant === undefined) throw refuse('launchTenantNotFound');
  const token = randomToken();
  const now = ctx.clock.now();
  await insertLaunchToken(ctx.db, {
    hash: hashToken(token),
    adminId,
    adminSessionId: principal.sessionId,
    tenantId: tenant.id,
    kind: input.kind,
    createdAt: now,
    expiresAt: new Date(now.getTime() + launchTokenLifetimeMs),
  });
  await ctx.audit.record({
    event: `launch.${input.kind}`,
    outcome: 'success',
    actor: `admin:${adminId}`,
    tenantId: tenant.id,
    ip: input.ip,
  });
  return token;
}

/** Why a launch token found could not be claimed, for the audit row. */
async function refusalOf(ctx: AppContext, found: LaunchToken, now: Date) {
  if (found.usedAt !== null) return 'used';
  if (found.expiresAt.getTime() <= now.getTime()) return 'expired';
  const admin = await findStaffUserById(ctx.db, found.adminId);
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
  const found = await findLaunchToken(ctx.db, hash);
  if (found === undefined) throw refuse('launchTokenNotFound');
  const claimed = await claimLaunchToken(ctx.db, hash, endingInstants(now, ctx.config));
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
  const { adminId } = claimed;
  const result = await ctx.sessions.open({
    scope: 'customer',
    tenantId: claimed.tenantId,
    accessType: 'Launched',
    hasRestrictedAccess: false,
    roleId: roleIdByScope.customer,
    launchedByAdminId: adminId,
    launchedBySessionId: claimed.adminSessionId,
  });
  await ctx.audit.record({
    event: 'customer.sign-in.launch',
    outcome: 'success',
    actor: `admin:${adminId}`,
    tenantId: claimed.tenantId,
    ip,
    detail: {
      sessionId: result.sessionGuid,
      kind: claimed.kind,
      launchedBySessionId: claimed.adminSessionId,
    },
  });
  return result;
}
