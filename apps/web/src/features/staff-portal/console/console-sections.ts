import { type ComponentType, type LazyExoticComponent, lazy } from 'react';
import type { StaffScope } from '../common/staff-scope.ts';

/** A section of the console: its place in the navigation and its page, loaded when first opened. */
export interface ConsoleSection {
  /** The section's path under `/a/console/` or `/d/console/`. */
  path: string;
  label: string;
  /** Admins only; a customer manager neither sees nor reaches it. */
  adminOnly: boolean;
  page: LazyExoticComponent<ComponentType<{ scope: StaffScope }>>;
}

/** Every section of the console, in the navigation's order; the first one a user may see opens first. */
const consoleSections: ConsoleSection[] = [
  {
    path: 'organizations',
    label: 'Organizations',
    adminOnly: true,
    page: lazy(() => import('./organizations-page.tsx').then((m) => ({ default: m.OrganizationsPage }))),
  },
  {
    path: 'staff',
    label: 'Staff',
    adminOnly: false,
    page: lazy(() => import('./staff-page.tsx').then((m) => ({ default: m.StaffPage }))),
  },
  {
    path: 'consumers',
    label: 'Consumers and mailings',
    adminOnly: true,
    page: lazy(() => import('./data/consumers-page.tsx').then((m) => ({ default: m.ConsumersPage }))),
  },
  {
    path: 'audit',
    label: 'Audit log',
    adminOnly: false,
    page: lazy(() => import('./data/audit-page.tsx').then((m) => ({ default: m.AuditPage }))),
  },
];

export function sectionsOf(scope: StaffScope): ConsoleSection[] {
  return consoleSections.filter((section) => scope === 'admin' || !section.adminOnly);
}
