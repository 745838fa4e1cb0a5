import { lazy } from 'react';
import { Navigate, Route } from 'react-router';
import { paths } from '../../config/paths.ts';
import type { TargetPath } from './consumer-messages.ts';

const ConsumerPortalLayout = lazy(() =>
  import('./consumer-layout.tsx').then((m) => ({ default: m.ConsumerPortalLayout })),
);
const TargetPage = lazy(() => import('./target-page.tsx').then((m) => ({ default: m.TargetPage })));
const ConsumerHomePage = lazy(() =>
  import('./consumer-home-page.tsx').then((m) => ({ default: m.ConsumerHomePage })),
);
const ExpiredLinkPage = lazy(() =>
  import('./link-status-pages.tsx').then((m) => ({ default: m.ExpiredLinkPage })),
);
const FailedConnectionPage = lazy(() =>
  import('./link-status-pages.tsx').then((m) => ({ default: m.FailedConnectionPage })),
);
const SignedOutPage = lazy(() =>
  import('./link-status-pages.tsx').then((m) => ({ default: m.SignedOutPage })),
);
const VerifyTokenPage = lazy(() =>
  import('./verify-pages.tsx').then((m) => ({ default: m.VerifyTokenPage })),
);
const VerifyIdentityPage = lazy(() =>
  import('./verify-pages.tsx').then((m) => ({ default: m.VerifyIdentityPage })),
);
const MfaPage = lazy(() => import('./mfa-page.tsx').then((m) => ({ default: m.MfaPage })));

/** The paths below `/c/` of the pages the target codes lead to. */
const targetPaths: readonly TargetPath[] = [
  'account-summary',
  'documents',
  'payment-options',
  'document-view',
  'payment-method',
];

const portal = paths.consumerPortal;

/**
 * Everything under `/c/`: the consumer portal on a tenant host. Declared as static route
 * segments (not a `/c/*` splat), so the router ranks `/c/document-view/42` above the link route
 * `:token/:target/:targetId`. The layout (session renewal and expiry) loads with the first page.
 */
export function consumerPortalRoutes() {
  return (
    <Route path={portal.pattern} element={<ConsumerPortalLayout />}>
      <Route index element={<ConsumerHomePage />} />
      {targetPaths.flatMap((path) => [
        <Route key={path} path={path} element={<TargetPage page={path} />} />,
        <Route key={`${path}/:id`} path={`${path}/:id`} element={<TargetPage page={path} />} />,
      ])}
      <Route path={portal.expiredLink.pattern} element={<ExpiredLinkPage />} />
      <Route path={portal.failedConnection.pattern} element={<FailedConnectionPage />} />
      <Route path={portal.verifyToken.pattern} element={<VerifyTokenPage />} />
      <Route path={portal.verifyIdentity.pattern} element={<VerifyIdentityPage />} />
      <Route path={portal.mfa.pattern} element={<MfaPage />} />
      <Route path={portal.signedOut.pattern} element={<SignedOutPage />} />
      <Route path="*" element={<Navigate to={portal.home.href()} replace />} />
    </Route>
  );
}
