import type { CustomerAuthApi, StaffAuthApi } from '@entry/client';
import { paths } from '../../config/paths.ts';
import { usePortalApi } from '../../lib/session/portal-api.ts';

/** The two portals that sign in with a username and password. */
export type StaffScope = 'admin' | 'customer';

export const staffPortalNames: Record<StaffScope, string> = {
  admin: 'Admin portal',
  customer: 'Customer portal',
};

export function staffPaths(scope: StaffScope) {
  return scope === 'admin' ? paths.adminPortal : paths.customerPortal;
}

/** The password calls of the scope's own API client. */
export function useStaffAuth(scope: StaffScope): StaffAuthApi {
  const api = usePortalApi(scope);
  return scope === 'admin' ? api.adminAuth : api.customerAuth;
}

export function useCustomerAuth(): CustomerAuthApi {
  return usePortalApi('customer').customerAuth;
}

/** What the change page is told by the page that sent the person there. */
export interface ChangePasswordState {
  username?: string;
  passwordExpired?: boolean;
}

export function changePasswordStateOf(state: unknown): ChangePasswordState {
  if (typeof state !== 'object' || state === null) return {};
  const { username, passwordExpired } = state as Record<string, unknown>;
  return {
    ...(typeof username === 'string' ? { username } : {}),
    ...(passwordExpired === true ? { passwordExpired: true } : {}),
  };
}
