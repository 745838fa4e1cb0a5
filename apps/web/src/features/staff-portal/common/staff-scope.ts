import type { CustomerAuthApi, SecondFactorsApi, StaffAuthApi } from '@entry/client';
import { paths } from '../../../config/paths.ts';
import { usePortalApi } from '../../../lib/session/portal-api.ts';
import type { SessionView } from '../../../lib/session/use-session.ts';

/** The two portals that sign in with a username and password. */
export type StaffScope = 'admin' | 'customer';

export const staffPortalNames: Record<StaffScope, string> = {
  admin: 'Admin portal',
  customer: 'Customer portal',
};

export function staffPaths(scope: StaffScope) {
  return scope === 'admin' ? paths.adminPortal : paths.customerPortal;
}

/** A section of the console (`/a/console/staff`), or its start without one. */
export function consoleHref(scope: StaffScope, section?: string): string {
  const start = `${scope === 'admin' ? paths.adminPortal.href() : paths.customerPortal.href()}/console`;
  return section === undefined ? start : `${start}/${section}`;
}

/** The password calls of the scope's own API client. */
export function useStaffAuth(scope: StaffScope): StaffAuthApi {
  const api = usePortalApi(scope);
  return scope === 'admin' ? api.adminAuth : api.customerAuth;
}

/** The second-factor calls of the scope's own API client. */
export function useSecondFactors(scope: StaffScope): SecondFactorsApi {
  const api = usePortalApi(scope);
  return scope === 'admin' ? api.adminSecondFactors : api.customerSecondFactors;
}

/**
 * What the tab's staff session may do: nothing, only the second step after a password (`pending`),
 * only the set-up of a first second factor (`enrolment`), only a new password after an expired one
 * (`password-expired`), or everything (`full`).
 */
export type StaffAccess = 'none' | 'pending' | 'enrolment' | 'password-expired' | 'full';

export function staffAccessOf(session: SessionView): StaffAccess {
  const { state, record } = session;
  if (state.token === '' || state.expired || record === null) return 'none';
  if (!state.restricted) return 'full';
  if (record.accessType === 'SecondFactorPending') return 'pending';
  if (record.accessType === 'SecondFactorEnrolment') return 'enrolment';
  if (record.accessType === 'PasswordExpired') return 'password-expired';
  return 'none';
}

/** The page a staff session of this access belongs on. */
export function staffStartPath(scope: StaffScope, access: StaffAccess): string {
  const pages = staffPaths(scope);
  switch (access) {
    case 'full':
      return pages.home.href();
    case 'pending':
      return pages.secondFactor.href();
    case 'enrolment':
      return pages.security.href();
    case 'password-expired':
      return pages.changePassword.href();
    case 'none':
      return pages.signIn.href();
  }
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
