import {
  type AppConfig,
  appsSubdomain,
  consumerPortalBasePath,
  hostRoleOf,
  portalOrigin,
} from '@entry/domain';
import { paths } from '../../config/paths.ts';

export type PickerStart =
  | { kind: 'redirect'; url: string }
  | { kind: 'form' }
  | { kind: 'lookup'; subdomain: string };

function containsAny(text: string, markers: readonly string[]): boolean {
  return markers.some((marker) => marker !== '' && text.includes(marker));
}

function appsHostUrl(config: AppConfig, path: string): string {
  return `${portalOrigin({ ...config, subdomain: appsSubdomain })}${path}`;
}

/**
 * What the picker does on load (docs/rules.md#hosts): a tenant host is looked up;
 * elsewhere a provider marker in the address's domain leads to the admin (`/a`) or customer (`/d`)
 * portal on the apps host, and without one the form is shown.
 */
export function pickerStartFor(hostname: string, config: AppConfig): PickerStart {
  const role = hostRoleOf(hostname, config.domain);
  if (role.kind === 'tenant') return { kind: 'lookup', subdomain: role.subdomain };
  if (containsAny(role.addressDomain, config.adminDomainMarkers)) {
    return { kind: 'redirect', url: appsHostUrl(config, paths.adminPortal.href()) };
  }
  if (containsAny(role.addressDomain, config.dashDomainMarkers)) {
    return { kind: 'redirect', url: appsHostUrl(config, paths.customerPortal.href()) };
  }
  return { kind: 'form' };
}

/** Where the form sends a person once their subdomain is found: `{scheme}://{subdomain}.{domain}{:port}/c/`. */
export function consumerPortalUrl(config: AppConfig, subdomain: string): string {
  return `${portalOrigin({ ...config, subdomain })}${consumerPortalBasePath}`;
}
