import type { AuthTokenResult } from '@entry/domain';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { type LaunchKind, launchTokens, tenants } from '../db/schema.ts';
import { ApiError, apiMessages, notFound } from '../errors.ts';
import { hashToken, randomToken } from './sessions.ts';
import { staffRoleIds } from './staff-roles.ts';

export const launchTokenLifetimeMs = 60_000;

export const launchMessages = {
  tenantNotFound: 'No customer has this id.',
  tokenNotFound: 'This launch link is not valid.',
} as const;

/** An admin opens a customer's portal (or its dash billing): a single-use token valid 60 s. */
export async function createLaunchToken(
  ctx: AppContext,
  input: { adminId: number; customerId: number; kind: LaunchKind; ip: string },
): Promise<string> {
  const [tenant] = await ctx.db
    .select({ id: tenants.id })
    .from(tenants)
    .where(eq(tenants.id, input.customerId));
  if (tenant === undefined) throw notFound(launchMessages.tenantNotFound);
  const token = randomToken();
  const now = ctx.clock.now();
  await ctx.db.insert(launchTokens).values({
    hash: hashToken(token),
    adminId: input.adminId,
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

/** Exchanges a launch token for a customer session that records the admin who launched it. */
export async function signInWithLaunchToken(
  ctx: AppContext,
  token: string,
  ip: string,
): Promise<AuthTokenResult> {
  const hash = hashToken(token);
  const now = ctx.clock.now();
  const [found] = await ctx.db.select().from(launchTokens).where(eq(launchTokens.hash, hash));
  if (found === undefined) throw notFound(launchMessages.tokenNotFound);
  // Only one request can claim the token, even when several arrive at once.
  const [claimed] = await ctx.db
    .update(launchTokens)
    .set({ usedAt: now })
    .where(and(eq(launchTokens.hash, hash), isNull(launchTokens.usedAt), gt(launchTokens.expiresAt, now)))
    .returning();
  if (claimed === undefined) {
    await ctx.audit.record({
      event: 'customer.sign-in.launch',
      outcome: 'failure',
      actor: `admin:${found.adminId}`,
      tenantId: found.tenantId,
      ip,
      detail: { reason: found.usedAt === null ? 'expired' : 'used' },
    });
    throw new ApiError(400, 'InvalidState', apiMessages.invalidLaunchToken);
  }
  const result = await ctx.sessions.createSession({
    scope: 'customer',
    tenantId: claimed.tenantId,
    accessType: 'Launched',
    hasRestrictedAccess: false,
    roleId: staffRoleIds.customer,
    launchedByAdminId: claimed.adminId,
  });
  await ctx.audit.record({
    event: 'customer.sign-in.launch',
    outcome: 'success',
    actor: `admin:${claimed.adminId}`,
    tenantId: claimed.tenantId,
    ip,
    detail: { sessionId: result.sessionGuid, kind: claimed.kind },
  });
  return result;
}
