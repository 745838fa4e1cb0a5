/** The first label of the host that shows the domain picker and the admin and customer portals. */
export const appsSubdomain = 'apps';

export type HostRole =
  /** `apps.{domain}`, the bare domain or an unrelated host: the picker; `addressDomain` is the domain taken from the address. */
  | { kind: 'apps'; addressDomain: string }
  /** `{subdomain}.{domain}`: a tenant's host. */
  | { kind: 'tenant'; subdomain: string };

/**
 * What the current host is, given the configured parent domain. A host whose first label is
 * `apps` is an apps host whatever follows it, because the provider's markers are read from the
 * domain that follows (docs/rules.md#hosts).
 */
export function hostRoleOf(hostname: string, domain: string): HostRole {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const parentDomain = domain.toLowerCase();
  const [firstLabel, ...rest] = host.split('.');
  if (firstLabel === appsSubdomain && rest.length > 0) return { kind: 'apps', addressDomain: rest.join('.') };
  const suffix = `.${parentDomain}`;
  if (host.endsWith(suffix) && host.length > suffix.length) {
    return { kind: 'tenant', subdomain: host.slice(0, -suffix.length) };
  }
  return { kind: 'apps', addressDomain: host };
}

/** The tenant subdomain of the host, or null on the apps host and the bare domain. */
export function tenantSubdomainOf(hostname: string, domain: string): string | null {
  const role = hostRoleOf(hostname, domain);
  return role.kind === 'tenant' ? role.subdomain : null;
}
