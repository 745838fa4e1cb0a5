import type { ReactNode } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { useAppConfig } from '../../config/app-config-context.tsx';
import { paths } from '../../config/paths.ts';
import { IdleTimeout, staffIdleMs } from '../../lib/session/idle-timeout.tsx';
import { useSessionNavigation } from '../../lib/session/session-navigation.ts';
import { isSignedIn, type SessionView, useSession } from '../../lib/session/use-session.ts';
import { useSessionLifecycle } from '../../lib/session/use-session-lifecycle.ts';
import { ChangePasswordPage } from './change-password-page.tsx';
import { HomePage } from './home-page.tsx';
import { LaunchBanner } from './launch-banner.tsx';
import { LaunchPage } from './launch-page.tsx';
import { ResetPasswordPage } from './reset-password-page.tsx';
import { SignInPage } from './sign-in-page.tsx';
import { type StaffScope, staffPaths } from './staff-scope.ts';
import '../../lib/session/portal.css';

/** A page that needs a session: without one the person is sent to the portal's sign-in. */
function Protected({
  scope,
  children,
}: {
  scope: StaffScope;
  children: (session: SessionView) => ReactNode;
}) {
  const session = useSession(scope);
  if (!isSignedIn(session)) return <Navigate to={staffPaths(scope).signIn.href()} replace />;
  return children(session);
}

/** Everything under `/a/` (admin) or `/d/` (customer), on the apps host. */
export function StaffPortalRoutes({ scope }: { scope: StaffScope }) {
  useSessionNavigation();
  useSessionLifecycle(scope);
  const pages = staffPaths(scope);
  const session = useSession(scope);
  const signedIn = isSignedIn(session);
  const start = signedIn ? pages.home.href() : pages.signIn.href();
  const idleMs = staffIdleMs(useAppConfig());
  return (
    <>
      {scope === 'customer' && <LaunchBanner />}
      {signedIn && <IdleTimeout scope={scope} idleMs={idleMs} />}
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
        {scope === 'customer' && (
          <Route path={paths.customerPortal.launch.pattern} element={<LaunchPage />} />
        )}
        <Route path="*" element={<Navigate to={start} replace />} />
      </Routes>
    </>
  );
}
