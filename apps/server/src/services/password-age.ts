import type { StaffUser } from '../stores/staff-users.ts';
import type { TenantRow } from '../stores/tenants.ts';

/** Whether the user's password is past the maximum age their organization sets (none: never). */
export function isPasswordExpired(
  user: Pick<StaffUser, 'passwordChangedAt'>,
  tenant: Pick<TenantRow, 'settings'> | undefined,
  now: Date,
): boolean {
  const maxDays = tenant?.settings.maxPasswordAgeDays;
  if (maxDays === null || maxDays === undefined) return false;
  return now.getTime() - user.passwordChangedAt.getTime() > maxDays * 86_400_000;
}
