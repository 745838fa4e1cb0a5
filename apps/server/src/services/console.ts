import {
  type AuditFilterQuery,
  type ConsoleAccess,
  type ConsoleInvitation,
  type ConsoleOrganization,
  type ConsoleOrganizationCreate,
  type ConsoleOrganizationUpdate,
  type ConsoleStaffAction,
  type ConsoleStaffQuery,
  type ConsoleStaffUser,
  consumerPortalBasePath,
  portalOrigin,
  type StaffKind,
} from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { consumerCountsByTenant } from '../stores/consumers.ts';
import { listStaffUsers, type StaffUserListing, staffCountsByTenant } from '../stores/staff-user-admin.ts';
import { findStaffUserById, type StaffUser } from '../stores/staff-users.ts';
import { findTenantById } from '../stores/tenants.ts';
import type { ChangeAuthor } from './consumer-import.ts';
import { resetFactorsOfUser } from './second-factor-resets.ts';
import { assertRecentSecondFactor } from './second-factors.ts';
import type { SessionPrincipal } from './sessions.ts';
import {
  createStaffUser,
  disableStaffUser,
  enableStaffUser,
  isInvitationPending,
  mailInvitation,
  resendInvitation,
  type StaffPlacement,
  setStaffUserManager,
  unlockStaffUser,
} from './staff-users.ts';
import { createTenant, listTenants, type Tenant, updateTenant } from './tenants.ts';

/**
 * The operator console: one authorization rule for every call. An admin acts on every
 * organization; a customer manager only on the customer users of their own organization, and
 * another organization's users (or any admin) do not exist for them (404). Every change needs a
 * second factor used within the step-up window and is audited with the acting user.
 */

/** The staff user a console call acts as. */
export interface ConsoleActor {
  userId: number;
  kind: StaffKind;
  /** A manager's organization; null for an admin. */
  tenantId: number | null;
  /** As the audit log names actors, e.g. `admin:1`. */
  auditName: string;
  principal: SessionPrincipal;
}

/** A listing never answers more rows than a page shows; the search narrows it. */
const maxListedUsers = 500;

/** The console's user of a session: an admin, or a customer manager; anyone else is refused. */
export async function consoleActorOf(ctx: AppContext, principal: SessionPrincipal): Promise<ConsoleActor> {
  // A launched customer session stands for the admin who launched it, not for a staff user.
  if (principal.staffUserId === null) throw refuse('notPermitted');
  const user = await findStaffUserById(ctx.db, principal.staffUserId);
  if (user === undefined || user.disabled) throw refuse('notAuthorized');
  if (user.kind === 'customer' && !user.manager) throw refuse('notPermitted');
  return {
    userId: user.id,
    kind: user.kind,
    tenantId: user.kind === 'admin' ? null : user.tenantId,
    auditName: `${user.kind}:${user.id}`,
    principal,
  };
}

/** Whether the console serves the session's user: the staff home page links to it only then. */
export async function consoleAccessOf(ctx: AppContext, principal: SessionPrincipal): Promise<ConsoleAccess> {
  const kind: StaffKind = principal.scope === 'admin' ? 'admin' : 'customer';
  if (principal.staffUserId === null) return { kind, manager: false, console: false };
  const user = await findStaffUserById(ctx.db, principal.staffUserId);
  const manager = user?.manager === true;
  return { kind, manager, console: user !== undefined && (kind === 'admin' || manager) };
}

/** The console's admin-only calls: an organization's list, settings, consumers and mailings. */
export function assertConsoleAdmin(actor: ConsoleActor): void {
  if (actor.kind !== 'admin') throw refuse('notPermitted');
}

/** A change: the actor's second factor must be recent (the launch's step-up). */
function assertMayChange(ctx: AppContext, actor: ConsoleActor): void {
  assertRecentSecondFactor(ctx, actor.principal);
}

/**
 * An admin's change to an organization's consumers or mailings, made by the CLI's services: the
 * author their audit rows name, once the admin has stepped up.
 */
export function consoleAdminChange(ctx: AppContext, actor: ConsoleActor, ip: string | null): ChangeAuthor {
  assertConsoleAdmin(actor);
  assertMayChange(ctx, actor);
  return { actor: actor.auditName, ip };
}

async function audit(
  ctx: AppContext,
  actor: ConsoleActor,
  event: string,
  tenantId: number | null,
  detail: Record<string, unknown>,
): Promise<void> {
  await ctx.audit.record({
    event: `console.${event}`,
    outcome: 'success',
    actor: actor.auditName,
    tenantId,
    detail,
  });
}

function consumerPortalUrl(ctx: AppContext, subdomain: string): string {
  const origin = portalOrigin({
    scheme: ctx.config.publicScheme,
    subdomain,
    domain: ctx.config.publicDomain,
    port: ctx.config.publicPort,
  });
  return `${origin}${consumerPortalBasePath}`;
}

function organizationOf(
  ctx: AppContext,
  tenant: Tenant,
  extra: { hasLogo: boolean; consumerCount: number; staffCount: number },
): ConsoleOrganization {
  return {
    customerId: tenant.customerId,
    subdomain: tenant.subdomain,
    name: tenant.name,
    contact: tenant.contact,
    consumerMfaRequired: tenant.settings.mfaRequired,
    staffSecondFactor: tenant.settings.staffSecondFactor ?? 'optional',
    maxPasswordAgeDays: tenant.settings.maxPasswordAgeDays,
    consumerPortalUrl: consumerPortalUrl(ctx, tenant.subdomain),
    createdAt: tenant.createdAt.toISOString(),
    ...extra,
  };
}

async function organizationsMatching(
  ctx: AppContext,
  matches: (tenant: Tenant) => boolean,
): Promise<ConsoleOrganization[]> {
  const [tenants, consumerCounts, staffCounts] = await Promise.all([
    listTenants(ctx.db),
    consumerCountsByTenant(ctx.db),
    staffCountsByTenant(ctx.db),
  ]);
  return tenants.filter(matches).map((tenant) =>
    organizationOf(ctx, tenant, {
      hasLogo: tenant.hasLogo,
      consumerCount: consumerCounts.get(tenant.customerId) ?? 0,
      staffCount: staffCounts.get(tenant.customerId) ?? 0,
    }),
  );
}

export function listOrganizations(
  ctx: AppContext,
  actor: ConsoleActor,
  search: string | undefined,
): Promise<ConsoleOrganization[]> {
  assertConsoleAdmin(actor);
  const text = search?.toLowerCase() ?? '';
  return organizationsMatching(ctx, (tenant) =>
    [tenant.name, tenant.subdomain, String(tenant.customerId)].some((value) =>
      value.toLowerCase().includes(text),
    ),
  );
}

export async function createOrganization(
  ctx: AppContext,
  actor: ConsoleActor,
  input: ConsoleOrganizationCreate,
): Promise<ConsoleOrganization> {
  assertConsoleAdmin(actor);
  assertMayChange(ctx, actor);
  const tenant = await createTenant(ctx.db, ctx.config, ctx.clock, {
    subdomain: input.subdomain,
    name: input.name,
    customerId: input.customerId,
    mfaRequired: input.consumerMfaRequired,
    maxPasswordAgeDays: input.maxPasswordAgeDays,
  });
  await audit(ctx, actor, 'tenant.create', tenant.customerId, {
    subdomain: tenant.subdomain,
    settings: tenant.settings,
  });
  return organizationOf(ctx, tenant, { hasLogo: false, consumerCount: 0, staffCount: 0 });
}

function logoOf(base64: string | null | undefined): Buffer | null | undefined {
  if (base64 === null || base64 === undefined) return base64;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length === 0) throw refuse('invalidLogoBase64');
  return Buffer.from(base64, 'base64');
}

export async function updateOrganization(
  ctx: AppContext,
  actor: ConsoleActor,
  customerId: number,
  input: ConsoleOrganizationUpdate,
): Promise<ConsoleOrganization> {
  assertConsoleAdmin(actor);
  assertMayChange(ctx, actor);
  if (Object.values(input).every((value) => value === undefined)) throw refuse('consoleNothingToUpdate');
  const current = await findTenantById(ctx.db, customerId);
  if (current === undefined) throw refuse('launchTenantNotFound');
  const { tenant, changed } = await updateTenant(ctx.db, ctx.clock, current.subdomain, {
    name: input.name,
    phone: input.phone,
    email: input.email,
    hours: input.hours,
    website: input.website,
    logo: logoOf(input.logoBase64),
    staffSecondFactor: input.staffSecondFactor,
    mfaRequired: input.consumerMfaRequired,
    maxPasswordAgeDays: input.maxPasswordAgeDays,
  });
  await audit(ctx, actor, 'tenant.update', tenant.customerId, { subdomain: tenant.subdomain, changed });
  const [updated] = await organizationsMatching(
    ctx,
    (candidate) => candidate.customerId === tenant.customerId,
  );
  if (updated === undefined) throw refuse('launchTenantNotFound');
  return updated;
}

function staffUserOf(listing: StaffUserListing, now: Date): ConsoleStaffUser {
  const { user } = listing;
  const locks = [user.lockedUntil, user.secondFactorLockedUntil].filter(
    (until): until is Date => until !== null && until.getTime() > now.getTime(),
  );
  const lockedUntil =
    locks.length === 0 ? null : new Date(Math.max(...locks.map((until) => until.getTime())));
  return {
    id: user.id,
    kind: user.kind,
    customerId: user.tenantId,
    username: user.username,
    email: user.email,
    displayName: user.displayName,
    manager: user.manager,
    disabled: user.disabled,
    lockedUntil: lockedUntil?.toISOString() ?? null,
    authenticatorApp: listing.authenticatorApp,
    passkeys: listing.passkeys,
    lastSignInAt: listing.lastSignInAt?.toISOString() ?? null,
    invitationPending: isInvitationPending(user),
    createdAt: user.createdAt.toISOString(),
  };
}

/** The organization an actor may name: a manager only their own (another is not found). */
function scopedTenantId(actor: ConsoleActor, customerId: number | undefined): number | undefined {
  if (actor.kind === 'admin') return customerId;
  if (customerId !== undefined && customerId !== actor.tenantId) throw refuse('launchTenantNotFound');
  return actor.tenantId ?? undefined;
}

/**
 * The audit log's filter as the actor may ask it: a manager reads only their organization's rows,
 * so rows of another organization, and rows of no organization (an admin's own), never reach them.
 */
export function consoleAuditQuery<Query extends AuditFilterQuery>(actor: ConsoleActor, query: Query): Query {
  return { ...query, customerId: scopedTenantId(actor, query.customerId) };
}

export async function listStaff(
  ctx: AppContext,
  actor: ConsoleActor,
  query: ConsoleStaffQuery,
): Promise<ConsoleStaffUser[]> {
  if (actor.kind === 'customer' && query.kind === 'admin') throw refuse('notPermitted');
  const listings = await listStaffUsers(
    ctx.db,
    {
      kind: actor.kind === 'customer' ? 'customer' : query.kind,
      tenantId: scopedTenantId(actor, query.customerId),
      search: query.search,
    },
    maxListedUsers,
  );
  const now = ctx.clock.now();
  return listings.map((listing) => staffUserOf(listing, now));
}

/** A user the actor may see: a manager sees the customer users of their organization only. */
async function visibleUser(ctx: AppContext, actor: ConsoleActor, userId: number): Promise<StaffUser> {
  const user = await findStaffUserById(ctx.db, userId);
  if (user === undefined) throw refuse('staffUserIdNotFound');
  if (actor.kind === 'customer' && (user.kind !== 'customer' || user.tenantId !== actor.tenantId)) {
    throw refuse('staffUserIdNotFound');
  }
  return user;
}

async function listedUser(ctx: AppContext, userId: number): Promise<ConsoleStaffUser> {
  const [listing] = await listStaffUsers(ctx.db, { userId }, 1);
  if (listing === undefined) throw refuse('staffUserIdNotFound');
  return staffUserOf(listing, ctx.clock.now());
}

export async function inviteStaffUser(
  ctx: AppContext,
  actor: ConsoleActor,
  input: ConsoleInvitation,
): Promise<{ user: ConsoleStaffUser; invitationExpiresAt: string }> {
  if (actor.kind === 'customer' && (input.kind === 'admin' || input.manager === true)) {
    throw refuse('notPermitted');
  }
  const tenantId = input.kind === 'customer' ? scopedTenantId(actor, input.customerId) : input.customerId;
  if (input.kind === 'customer' && tenantId === undefined) throw refuse('consoleOrganizationRequired');
  if (input.kind === 'admin' && tenantId !== undefined) throw refuse('consoleOrganizationForbidden');
  assertMayChange(ctx, actor);
  let placement: StaffPlacement = { kind: 'admin' };
  if (tenantId !== undefined) {
    const tenant = await findTenantById(ctx.db, tenantId);
    if (tenant === undefined) throw refuse('launchTenantNotFound');
    placement = { kind: 'customer', tenant: tenant.subdomain };
  }
  const created = await createStaffUser(ctx.db, ctx.config, ctx.clock, {
    ...placement,
    username: input.username,
    email: input.email,
    displayName: input.displayName,
    manager: input.manager,
  });
  const user = await visibleUser(ctx, actor, created.id);
  await mailInvitation(ctx, user, created);
  await audit(ctx, actor, `${created.kind}.create`, created.tenantId, {
    userId: created.id,
    username: created.username,
    manager: user.manager,
  });
  return {
    user: await listedUser(ctx, created.id),
    invitationExpiresAt: created.setPasswordExpiresAt.toISOString(),
  };
}

/** One of the console's staff actions on a user the actor may see; answers the user after it. */
export async function actOnStaffUser(
  ctx: AppContext,
  actor: ConsoleActor,
  userId: number,
  action: ConsoleStaffAction,
): Promise<ConsoleStaffUser> {
  const user = await visibleUser(ctx, actor, userId);
  assertMayChange(ctx, actor);
  const detail: Record<string, unknown> = { userId: user.id };
  switch (action) {
    case 'disable':
      await disableStaffUser(ctx, user.kind, user.username, actor.auditName);
      break;
    case 'enable':
      await enableStaffUser(ctx.db, user.kind, user.username);
      break;
    case 'unlock':
      await unlockStaffUser(ctx.db, user.kind, user.username);
      break;
    case 'reset-second-factors': {
      const reset = await resetFactorsOfUser(ctx, user.kind, user.username, actor.auditName);
      detail.endedSessions = reset.endedSessionIds.length;
      break;
    }
    case 'resend-invitation':
      detail.expiresAt = (await resendInvitation(ctx, user)).toISOString();
      break;
  }
  await audit(ctx, actor, `${user.kind}.${action}`, user.tenantId, detail);
  return listedUser(ctx, user.id);
}

/** Gives or takes the manager role of a customer user: admins only. */
export async function setManager(
  ctx: AppContext,
  actor: ConsoleActor,
  userId: number,
  manager: boolean,
): Promise<ConsoleStaffUser> {
  assertConsoleAdmin(actor);
  const user = await visibleUser(ctx, actor, userId);
  assertMayChange(ctx, actor);
  await setStaffUserManager(ctx.db, user.kind, user.username, manager);
  await audit(ctx, actor, 'customer.manager', user.tenantId, { userId: user.id, manager });
  return listedUser(ctx, user.id);
}
