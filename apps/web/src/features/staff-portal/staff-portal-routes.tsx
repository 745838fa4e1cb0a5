import { lazy, type ReactNode } from 'react';
import { Navigate, Route, Routes, useParams } from 'react-router';
import { useAppConfig } from '../../config/app-config-context.tsx';
import { paths } from '../../config/paths.ts';
import { IdleTimeout, staffIdleMs } from '../../lib/session/idle-timeout.tsx';
import { useSessionNavigation } from '../../lib/session/session-navigation.ts';
import { type SessionView, useSession } from '../../lib/session/use-session.ts';
import { useSessionLifecycle } from '../../lib/session/use-session-lifecycle.ts';
import {
  type StaffScope,
  staffAccessOf,
  staffPaths,
  staffStartPath,
  useStaffAuth,
} from './common/staff-scope.ts';
import { HomePage } from './home/home-page.tsx';
import { LaunchBanner } from './launch/launch-banner.tsx';
import { LaunchPage } from './launch/launch-page.tsx';
import { ChangePasswordPage } from './passwords/change-password-page.tsx';
import { ResetPasswordPage } from './passwords/reset-password-page.tsx';
import { SignInPage } from './sign-in/sign-in-page.tsx';
import '../../lib/session/portal.css';

// The second factors' pages load when a person reaches them, not with every sign-in page.
const SecondFactorPage = lazy(() =>
  import('./second-factor/second-factor-page.tsx').then((m) => ({ default: m.SecondFactorPage })),
);
// The operator console loads only for the admins and managers who open it.
const ConsoleLayout = lazy(() =>
  import('./console/console-layout.tsx').then((m) => ({ default: m.ConsoleLayout })),
);
const SecurityPage = lazy(() =>
  import('./security/security-page.tsx').then((m) => ({ default: m.SecurityPage })),
);

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

/** What every staff page runs under: session navigation and endings, the idle limit, the launch banner. */
function StaffShell({ scope, children }: { scope: StaffScope; children: ReactNode }) {
  useSessionNavigation();
  useSessionLifecycle(scope);
  const signedIn = staffAccessOf(useSession(scope)) === 'full';
  const idleMs = staffIdleMs(useAppConfig());
  const staffAuth = useStaffAuth(scope);
  // The server keeps the idle limit too, and a refresh is no use to it (decision record 032). A
  // failed report needs nothing here: the client has already ended a session the server refused.
  const reportActivity = () => void staffAuth.reportActivity().catch(() => undefined);
  return (
    <>
      {scope === 'customer' && <LaunchBanner />}
      {signedIn && <IdleTimeout scope={scope} idleMs={idleMs} onActive={reportActivity} />}
      {children}
    </>
  );
}

/**
 * Everything under `/a/` (admin) or `/d/` (customer) on the apps host; with `deepPath`, the paths of
 * three segments or more, which only the console has. One lazily loaded component for both keeps the
 * entry page's router small.
 */
export function StaffPortalRoutes({ scope, deepPath }: { scope: StaffScope; deepPath?: boolean }) {
  return (
    <StaffShell scope={scope}>
      {deepPath === true ? <ConsoleOrPortalStart scope={scope} /> : <StaffPortalPages scope={scope} />}
    </StaffShell>
  );
}

/** `/{a|d}/console/{section}` opens the console; any other deep path goes back to the portal's start. */
function ConsoleOrPortalStart({ scope }: { scope: StaffScope }) {
  if (useParams().section !== 'console') {
    return (
      <Navigate to={scope === 'admin' ? paths.adminPortal.href() : paths.customerPortal.href()} replace />
    );
  }
  return <Protected scope={scope}>{() => <ConsoleLayout scope={scope} />}</Protected>;
}

function StaffPortalPages({ scope }: { scope: StaffScope }) {
  const pages = staffPaths(scope);
  const start = staffStartPath(scope, staffAccessOf(useSession(scope)));
  return (
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
      <Route
        path="console"
        element={<Protected scope={scope}>{() => <ConsoleLayout scope={scope} />}</Protected>}
      />
      {scope === 'customer' && <Route path={paths.customerPortal.launch.pattern} element={<LaunchPage />} />}
      <Route path="*" element={<Navigate to={start} replace />} />
    </Routes>
  );
}
