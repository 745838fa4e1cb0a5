import { lazy } from 'react';

/**
 * One chunk per screen (route-level code splitting): the entry page loads only its own screen.
 */
export const DomainPickerPage = lazy(() =>
  import('../../features/domain-picker/domain-picker-page.tsx').then((m) => ({
    default: m.DomainPickerPage,
  })),
);
export const EmailPreferencesPage = lazy(() =>
  import('../../features/email-preferences/email-preferences-page.tsx').then((m) => ({
    default: m.EmailPreferencesPage,
  })),
);
export const LinkLandingPage = lazy(() =>
  import('../../features/link-landing/link-landing-page.tsx').then((m) => ({ default: m.LinkLandingPage })),
);
export const StaffPortalRoutes = lazy(() =>
  import('../../features/staff-portal/staff-portal-routes.tsx').then((m) => ({
    default: m.StaffPortalRoutes,
  })),
);
export const StaffConsoleRoutes = lazy(() =>
  import('../../features/staff-portal/staff-portal-routes.tsx').then((m) => ({
    default: m.StaffConsoleRoutes,
  })),
);
export const PrivacyPage = lazy(() =>
  import('../../features/privacy/privacy-page.tsx').then((m) => ({ default: m.PrivacyPage })),
);
