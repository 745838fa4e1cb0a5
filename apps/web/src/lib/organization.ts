import type { AccessApi, CallOptions } from '@entry/client';
import {
  type AccessResult,
  type Language,
  type OrganizationContact,
  productName,
  tenantSubdomainOf,
} from '@entry/domain';
import { useEffect, useSyncExternalStore } from 'react';
import { useAppConfigIfProvided } from '../config/app-config-context.tsx';
import { inNextTask } from './in-next-task.ts';

/** What a tenant's pages show of the organization behind them (its public details). */
export interface Organization {
  subdomain: string;
  name: string;
  contact: OrganizationContact;
  /** A path on the tenant's host; null when the organization has no logo. */
  logoUrl: string | null;
  /** Whether its pages carry the debt collector's disclosure. */
  debtCollector: boolean;
}

/**
 * Kept for the tab, beside the spec's keys: a Direct link's portal page opens in a new page load
 * and shows the organization without asking the server again (docs/rules.md#budgets).
 */
const storageKey = 'organization';

const noContact: OrganizationContact = { phone: null, email: null, hours: null, website: null };

function organizationOf(access: AccessResult): Organization {
  return {
    subdomain: access.subdomain,
    name: access.customerName,
    contact: access.contact ?? noContact,
    logoUrl: access.logoUrl ?? null,
    debtCollector: access.debtCollector ?? false,
  };
}

function isOrganization(value: unknown): value is Organization {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.subdomain === 'string' &&
    typeof candidate.name === 'string' &&
    typeof candidate.contact === 'object' &&
    candidate.contact !== null &&
    (candidate.logoUrl === null || typeof candidate.logoUrl === 'string') &&
    typeof candidate.debtCollector === 'boolean'
  );
}

function readStored(): Organization | null {
  try {
    const stored: unknown = JSON.parse(window.sessionStorage.getItem(storageKey) ?? 'null');
    return isOrganization(stored) ? stored : null;
  } catch {
    return null;
  }
}

let current: Organization | null | undefined;
const listeners = new Set<() => void>();

function snapshot(): Organization | null {
  current ??= readStored();
  return current;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Keeps what an access lookup of this host's tenant said, for every page of the tab. */
export function rememberOrganization(access: AccessResult): void {
  const organization = organizationOf(access);
  current = organization;
  try {
    window.sessionStorage.setItem(storageKey, JSON.stringify(organization));
  } catch {
    // Storage full or refused: the pages still show it until the next page load.
  }
  for (const listener of listeners) listener();
}

type AccessLookup = Pick<AccessApi, 'bySubdomain'>;

/** Each client's lookups that succeeded or are under way, by subdomain. */
const lookupsByClient = new WeakMap<AccessLookup, Map<string, Promise<AccessResult>>>();

/**
 * The access lookup of a tenant, made once per page and client whoever asks (the page for its
 * form, the layout for the organization's details), and remembered; `options` are the first
 * asker's (a page that explains a failure itself keeps the snack-bar silent).
 */
export function lookUpOrganization(
  access: AccessLookup,
  subdomain: string,
  options?: CallOptions,
): Promise<AccessResult> {
  let lookups = lookupsByClient.get(access);
  if (lookups === undefined) {
    lookups = new Map();
    lookupsByClient.set(access, lookups);
  }
  let lookup = lookups.get(subdomain);
  if (lookup === undefined) {
    lookup = access.bySubdomain(subdomain, options).then((result) => {
      rememberOrganization(result);
      return result;
    });
    const started = lookups;
    lookup.catch(() => started.delete(subdomain));
    lookups.set(subdomain, lookup);
  }
  return lookup;
}

/** The tenant subdomain of this host; null on the apps host and the bare domain. */
export function useHostSubdomain(): string | null {
  const config = useAppConfigIfProvided();
  return config === null ? null : tenantSubdomainOf(window.location.hostname, config.domain);
}

/** The organization of this host, once known; null on the apps host and the bare domain. */
export function useOrganization(): Organization | null {
  const organization = useSyncExternalStore(subscribe, snapshot, () => null);
  const subdomain = useHostSubdomain();
  return organization !== null && organization.subdomain === subdomain ? organization : null;
}

/** The organization the server named in this page's HTML (on a tenant's host), read once. */
interface OrganizationOfPage {
  subdomain: string;
  name: string;
  /** The language of its pages when nothing else decides it. */
  defaultLanguage?: Language;
}

let organizationOfPage: OrganizationOfPage | null | undefined;

export function namedInPage(): OrganizationOfPage | null {
  if (organizationOfPage === undefined) {
    organizationOfPage = null;
    try {
      const named: unknown = JSON.parse(document.getElementById('organization')?.textContent ?? 'null');
      const candidate = (typeof named === 'object' && named !== null ? named : {}) as Record<string, unknown>;
      if (typeof candidate.subdomain === 'string' && typeof candidate.name === 'string') {
        organizationOfPage = {
          subdomain: candidate.subdomain,
          name: candidate.name,
          ...(candidate.defaultLanguage === 'es' ? { defaultLanguage: 'es' } : {}),
        };
      }
    } catch {
      // A page without the organization shows the product's name until the lookup answers.
    }
  }
  return organizationOfPage;
}

/**
 * The name the header and the tab show: the organization's once known, before that the one the
 * server wrote into the page, so the first render keeps what the first paint showed; else the product's.
 */
export function useOrganizationName(): string {
  const organization = useOrganization();
  const subdomain = useHostSubdomain();
  if (organization !== null) return organization.name;
  const named = subdomain === null ? null : namedInPage();
  return named !== null && named.subdomain === subdomain ? named.name : productName;
}

/**
 * Looks the host's organization up when no page of the tab has yet: for pages reached without
 * a link (a bookmark, an e-mail's preferences link). After the page's own first task, so a page
 * that looks it up itself goes first and this one shares its call.
 */
export function useOrganizationLookup(access: AccessLookup): void {
  const subdomain = useHostSubdomain();
  const known = useOrganization() !== null;
  useEffect(() => {
    if (known || subdomain === null) return;
    return inNextTask(() => {
      lookUpOrganization(access, subdomain).catch(() => {
        // The page works without the details; one that needs the tenant says so itself.
      });
    });
  }, [known, access, subdomain]);
}
