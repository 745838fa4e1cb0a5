import { lazy, type ReactNode } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { useAppConfig } from '../../config/app-config-context.tsx';
import { paths } from '../../config/paths.ts';
import { IdleTimeout, staffIdleMs } from '../../lib/session/idle-timeout.tsx';
import { useSessionNavigation } from '../../lib/session/session-navigation.ts';
import { type SessionView, useSession } from '../../lib/session/use-session.ts';
import { useSessionLifecycle } from '../../lib/session/use-session-lifecycle.ts';
import { ChangePasswordPage } from './change-password-page.tsx';
import { HomePage } from './home-page.tsx';
import { LaunchBanner } from './launch-banner.tsx';
import { LaunchPage } from './launch-page.tsx';
import { ResetPasswordPage } from './reset-password-page.tsx';
import { SignInPage } from './sign-in-page.tsx';
import { type StaffScope, staffAccessOf, staffPaths, staffStartPath, useStaffAuth } from './staff-scope.ts';
import '../../lib/session/portal.css';

// The second factors' pages load when a person reaches them, not with every sign-in page.
const SecondFactorPage = lazy(() =>
  import('./second-factor-page.tsx').then((m) => ({ default: m.SecondFactorPage })),
);
const SecurityPage = lazy(() => import('./security-page.tsx').then((m) => ({ default: m.SecurityPage })));
const ConsumersPage = lazy(() =>
  import('./console/data/consumers-page.tsx').then((m) => ({ default: m.ConsumersPage })),
);
const AuditPage = lazy(() => import('./console/data/audit-page.tsx').then((m) => ({ default: m.AuditPage })));

/**
 * A page that needs a full session: without one the person is sent where their session belongs
 * (the sign-in, or the second step or first factor a password sign-in still needs).
 */
function Protected({
  scope,
  children,
}: {
  scope: StaffScope;
  children: (session: SessionView) => ReactNode;
}) {
  const session = useSession(scope);
  const access = staffAccessOf(session);
  if (access !== 'full') return <Navigate to={staffStartPath(scope, access)} replace />;
  return children(session);
}

/** What every staff page keeps: the session's navigation and lifecycle, and the idle limit. */
function StaffSessionWatch({ scope }: { scope: StaffScope }) {
  useSessionNavigation();
  useSessionLifecycle(scope);
  const signedIn = staffAccessOf(useSession(scope)) === 'full';
  const idleMs = staffIdleMs(useAppConfig());
  const staffAuth = useStaffAuth(scope);
  // The server keeps the idle limit too, and a refresh is no use to it (decision record 032). A
  // failed report needs nothing here: the client has already ended a session the server refused.
  const reportActivity = () => void staffAuth.reportActivity().catch(() => undefined);
  return signedIn ? <IdleTimeout scope={scope} idleMs={idleMs} onActive={reportActivity} /> : null;
}

/**
 * Everything under `/a/` (admin) or `/d/` (customer) on the apps host; with `consolePages`, everything
 * under `/a/console/`. One lazily loaded component for both keeps the entry page's router small.
 */
export function StaffPortalRoutes({ scope, consolePages }: { scope: StaffScope; consolePages?: boolean }) {
  return consolePages === true ? <AdminConsoleRoutes /> : <StaffPortalPages scope={scope} />;
}

function StaffPortalPages({ scope }: { scope: StaffScope }) {
  const pages = staffPaths(scope);
  const start = staffStartPath(scope, staffAccessOf(useSession(scope)));
  return (
    <>
      {scope === 'customer' && <LaunchBanner />}
      <StaffSessionWatch scope={scope} />
      <Routes>
        <Route index element={<Navigate to={start} replace />} />
        <Route path={pages.signIn.pattern} element={<SignInPage scope={scope} />} />
        <Route path={pages.resetPassword.pattern} element={<ResetPasswordPage scope={scope} />} />
        <Route path={pages.changePassword.pattern} element={<ChangePasswordPage scope={scope} />} />
        <Route
          path={pages.home.pattern}
          element={
            <Protected scope={scope}>{(current) => <HomePage scope={scope} session={current} />}</Protected>
          }
        />
        <Route path={pages.secondFactor.pattern} element={<SecondFactorPage scope={scope} />} />
        <Route path={pages.security.pattern} element={<SecurityPage scope={scope} />} />
        {scope === 'customer' && (
          <Route path={paths.customerPortal.launch.pattern} element={<LaunchPage />} />
        )}
        <Route path="*" element={<Navigate to={start} replace />} />
      </Routes>
    </>
  );
}

/** The admin console's pages under `/a/console/`, each loaded when first opened. */
function AdminConsoleRoutes() {
  return (
    <>
      <StaffSessionWatch scope="admin" />
      <Routes>
        <Route path="consumers" element={<Protected scope="admin">{() => <ConsumersPage />}</Protected>} />
        <Route path="audit" element={<Protected scope="admin">{() => <AuditPage />}</Protected>} />
        <Route path="*" element={<Navigate to={paths.adminPortal.home.href()} replace />} />
      </Routes>
    </>
  );
}
