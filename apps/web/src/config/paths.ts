import { consumerPortalBasePath, portalPages } from '@entry/domain';

/**
 * The pages shared by the admin (`/a`) and customer (`/d`) portals (DESIGN.md section 6). Patterns
 * are relative to the portal's base, for the portal's own route list.
 */
function staffPortalPages(base: '/a' | '/d') {
  return {
    signIn: { pattern: 'sign-in', href: (): string => `${base}/sign-in` },
    /** Without a token: ask for a link; with the mailed `?token=`: choose a new password. */
    resetPassword: {
      pattern: 'reset-password',
      href: (token?: string): string =>
        token === undefined
          ? `${base}/reset-password`
          : `${base}/reset-password?${new URLSearchParams({ token })}`,
    },
    changePassword: { pattern: 'change-password', href: (): string => `${base}/change-password` },
    home: { pattern: 'home', href: (): string => `${base}/home` },
    /** The second step after a password: an authenticator code, a passkey or a recovery code. */
    secondFactor: { pattern: 'second-factor', href: (): string => `${base}/second-factor` },
    /** Passkeys, the authenticator app and recovery codes; a first factor's set-up after sign-in. */
    security: { pattern: 'security', href: (): string => `${base}/security` },
    /**
     * The operator console: admins, and customer managers for their own organization's staff. Its
     * pattern is absolute: the app's router mounts it beside the portal's own routes. Its links
     * come from `consoleHref` (staff-scope.ts), kept out of the entry chunk.
     */
    console: { pattern: `${base}/console/*` },
  } as const;
}

/**
 * Every path of the app, built in one place. Route patterns (for the router) and links (for
 * navigation) sit side by side so they cannot drift apart.
 */
export const paths = {
  domainPicker: {
    pattern: '/',
    href: (): string => '/',
  },
  emailPreferences: {
    pattern: '/unsubscribe',
    href: (token?: string): string =>
      token === undefined ? '/unsubscribe' : `/unsubscribe?${new URLSearchParams({ token })}`,
  },
  /** What the product keeps of the people who use it. */
  privacy: {
    pattern: '/privacy',
    href: (): string => '/privacy',
  },
  linkLanding: {
    patterns: ['/:token/:target/:targetId', '/:token/:target', '/:token'] as const,
  },
  adminPortal: {
    pattern: '/a/*',
    href: (): string => '/a',
    ...staffPortalPages('/a'),
  },
  customerPortal: {
    pattern: '/d/*',
    href: (): string => '/d',
    ...staffPortalPages('/d'),
    /** `/d/launch?token=`: signs in with an admin's launch token. */
    launch: {
      pattern: 'launch',
      href: (token: string): string => `/d/launch?${new URLSearchParams({ token })}`,
    },
  },
  consumerPortal: {
    /** Mounted under `/c/`; the child patterns below are relative to it. */
    pattern: consumerPortalBasePath,
    home: { pattern: '', href: (): string => consumerPortalBasePath },
    expiredLink: {
      pattern: portalPages.expiredLink,
      href: (): string => consumerPath(portalPages.expiredLink),
    },
    failedConnection: {
      pattern: portalPages.failedConnection,
      href: (): string => consumerPath(portalPages.failedConnection),
    },
    verifyToken: {
      pattern: portalPages.verifyToken,
      href: (): string => consumerPath(portalPages.verifyToken),
    },
    verifyIdentity: {
      pattern: portalPages.verifyIdentity,
      href: (): string => consumerPath(portalPages.verifyIdentity),
    },
    /** The one-time code step after a verification (DESIGN.md section 6). */
    mfa: { pattern: 'mfa', href: (): string => consumerPath('mfa') },
    /** Where a Direct link's consumer lands after signing out: the link opens again only on request. */
    signedOut: { pattern: 'signed-out', href: (): string => consumerPath('signed-out') },
  },
} as const;

/** A page of the consumer portal by its path below `/c/`, e.g. `account-summary/42`. */
export function consumerPath(pathBelowPortal: string): string {
  return `${consumerPortalBasePath}${pathBelowPortal}`;
}
