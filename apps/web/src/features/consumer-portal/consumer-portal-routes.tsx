import { lazy } from 'react';
import { Navigate, Route } from 'react-router';
import { paths } from '../../config/paths.ts';
import type { TargetPageProps } from './target-page.tsx';

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

/** The pages the target codes lead to (spec section 2), by their path below `/c/`. */
export const targetPages: Record<string, TargetPageProps> = {
  'account-summary': {
    title: 'Account summary',
    description: 'An overview of your account with the organization that wrote to you.',
  },
  documents: { title: 'Documents', description: 'The letters and statements sent to you.' },
  'payment-options': { title: 'Payment options', description: 'The ways you can pay or set up a plan.' },
  'document-view': { title: 'Document', description: 'One of the letters or statements sent to you.' },
  'payment-method': { title: 'Payment method', description: 'How you would like to make your payment.' },
};

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
      {Object.entries(targetPages).flatMap(([path, props]) => [
        <Route key={path} path={path} element={<TargetPage {...props} />} />,
        <Route key={`${path}/:id`} path={`${path}/:id`} element={<TargetPage {...props} />} />,
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
