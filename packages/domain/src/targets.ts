/** Target codes of a link and the consumer portal pages they lead to. */

export const targetPaths = {
  0: 'account-summary',
  1: 'documents',
  2: 'payment-options',
  3: 'document-view',
  4: 'payment-method',
  5: 'payment-method',
  6: '',
  7: 'payment-options',
} as const;

export type TargetCode = keyof typeof targetPaths;

export const fallbackTargetCode = 0 satisfies TargetCode;

/** The portal pages that redirects name besides the target pages. */
export const portalPages = {
  expiredLink: 'expired-link',
  failedConnection: 'failed-connection',
  verifyToken: 'verify-token',
  verifyIdentity: 'verify-identity',
} as const;

type PortalPage = (typeof portalPages)[keyof typeof portalPages];

/** The consumer portal's base path on a tenant host. */
export const consumerPortalBasePath = '/c/';

export type TargetInput = string | number | null | undefined;

function isTargetCode(value: number): value is TargetCode {
  return Object.hasOwn(targetPaths, value);
}

/** Reads a target code as it arrives from a URL segment or storage; anything unknown or missing is null. */
export function parseTargetCode(target: TargetInput): TargetCode | null {
  if (target === null || target === undefined) return null;
  const text = String(target);
  if (!/^\d+$/.test(text)) return null;
  const code = Number(text);
  return isTargetCode(code) ? code : null;
}

/** The portal path of a target code; unknown or missing targets fall back to account-summary. */
export function targetPath(target: TargetInput): string {
  return targetPaths[parseTargetCode(target) ?? fallbackTargetCode];
}

/** The portal path parts for a target, with the target id appended when one is given. */
export function portalPathFor(target: TargetInput, targetId?: string | number | null): string {
  const parts = [targetPath(target)];
  if (targetId !== null && targetId !== undefined && String(targetId) !== '') {
    parts.push(encodeURIComponent(String(targetId)));
  }
  return parts.filter((part) => part !== '').join('/');
}

export interface PortalHost {
  scheme: string;
  subdomain: string;
  domain: string;
  /** Empty for the scheme's default port. */
  port?: string | number | null;
}

/** `{scheme}://{subdomain}.{domain}{:port}`, the port left out when empty. */
export function portalOrigin({ scheme, subdomain, domain, port }: PortalHost): string {
  const portPart = port === null || port === undefined || String(port) === '' ? '' : `:${port}`;
  return `${scheme}://${subdomain}.${domain}${portPart}`;
}

export interface PortalUrlInput extends PortalHost {
  target: TargetInput;
  targetId?: string | number | null;
  sessionGuid?: string | null;
}

/** `{scheme}://{subdomain}.{domain}{:port}/c/{path}[/{id}]?session-guid={guid}` */
export function buildPortalUrl(input: PortalUrlInput): string {
  const url = `${portalOrigin(input)}${consumerPortalBasePath}${portalPathFor(input.target, input.targetId)}`;
  return withSessionGuid(url, input.sessionGuid);
}

export interface PortalPageUrlInput extends PortalHost {
  page: PortalPage;
  sessionGuid?: string | null;
}

/** The URL of one of the portal pages that redirects name (expired-link, verify-token, ...). */
export function buildPortalPageUrl(input: PortalPageUrlInput): string {
  return withSessionGuid(`${portalOrigin(input)}${consumerPortalBasePath}${input.page}`, input.sessionGuid);
}

function withSessionGuid(url: string, sessionGuid: string | null | undefined): string {
  if (sessionGuid === null || sessionGuid === undefined || sessionGuid === '') return url;
  return `${url}?session-guid=${encodeURIComponent(sessionGuid)}`;
}
