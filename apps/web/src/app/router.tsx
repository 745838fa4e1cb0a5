import { Suspense, useEffect } from 'react';
import { Navigate, Outlet, Route, Routes, useLocation } from 'react-router';
import { AuthLayout } from '../components/auth-layout/auth-layout.tsx';
import { helpTopicOf } from '../components/auth-layout/help-content.tsx';
import { layoutTexts } from '../components/auth-layout/layout-texts.ts';
import { LoadingState } from '../components/loading-state.tsx';
import { PageLoadBoundary } from '../components/page-load-boundary.tsx';
import { paths } from '../config/paths.ts';
import { consumerPortalRoutes } from '../features/consumer-portal/consumer-portal-routes.tsx';
import { useTexts } from '../i18n/language.ts';
import { appUpdate } from '../lib/app-update.ts';
import {
  DomainPickerPage,
  EmailPreferencesPage,
  LinkLandingPage,
  PrivacyPage,
  StaffPortalRoutes,
} from './routes/lazy-pages.ts';

function LayoutWithSuspense() {
  const { pathname } = useLocation();
  const texts = useTexts('layout', layoutTexts);
  return (
    <AuthLayout helpTopic={helpTopicOf(pathname)}>
      <PageLoadBoundary>
        <Suspense fallback={<LoadingState label={texts.loading} />}>
          <Outlet />
        </Suspense>
      </PageLoadBoundary>
    </AuthLayout>
  );
}

/**
 * Every page but the link landing looks for new versions. The link landing leaves within a
 * moment and spends no request beyond its sign-in calls (docs/rules.md#budgets).
 */
function WithUpdateChecks() {
  useEffect(() => appUpdate.start(), []);
  return <Outlet />;
}

/**
 * The entry routes (docs/rules.md#web). The portal areas `/a`, `/d` and `/c` start with a static
 * segment and are declared so they outrank the link routes (`:token/:target/:targetId` and
 * shorter) for every path of up to three segments, so a link never swallows a portal page.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route element={<LayoutWithSuspense />}>
        <Route element={<WithUpdateChecks />}>
          <Route index element={<DomainPickerPage />} />
          <Route path={paths.emailPreferences.pattern} element={<EmailPreferencesPage />} />
          <Route path={paths.privacy.pattern} element={<PrivacyPage />} />
          <Route path={paths.adminPortal.pattern} element={<StaffPortalRoutes scope="admin" />} />
          <Route path={paths.customerPortal.pattern} element={<StaffPortalRoutes scope="customer" />} />
          {/* Only the console's staff pages have three segments; these outrank the link route, which
              would take `a` for a token, and send every other such path to the portal's start. */}
          <Route path="/a/:section/:rest/*" element={<StaffPortalRoutes scope="admin" deepPath />} />
          <Route path="/d/:section/:rest/*" element={<StaffPortalRoutes scope="customer" deepPath />} />
          {consumerPortalRoutes()}
        </Route>
        {paths.linkLanding.patterns.map((pattern) => (
          <Route key={pattern} path={pattern} element={<LinkLandingPage />} />
        ))}
      </Route>
      <Route path="*" element={<Navigate to={paths.domainPicker.href()} replace />} />
    </Routes>
  );
}
