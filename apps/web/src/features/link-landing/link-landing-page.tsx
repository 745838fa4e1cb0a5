import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { LoadingState } from '../../components/loading-state.tsx';
import { useAppConfig } from '../../config/app-config-context.tsx';
import { paths } from '../../config/paths.ts';
import { consumerApi } from '../../lib/api-client.ts';
import { tenantSubdomainOf } from '../../lib/host.ts';
import { browserNavigation } from '../../lib/navigation.ts';
import { decideLinkLanding, type LinkParams } from './link-guard.ts';

/** `:token`, `:token/:target`, `:token/:target/:targetId`: opens a link from a letter or an e-mail. */
export function LinkLandingPage() {
  const config = useAppConfig();
  const navigate = useNavigate();
  const routeParams = useParams();
  // Read once: the address is cleared right below, and the decision must not run twice.
  const [params] = useState<LinkParams>(() => ({
    token: routeParams.token,
    target: routeParams.target,
    targetId: routeParams.targetId,
  }));

  useEffect(() => {
    // The token is a credential: it leaves the address bar and the history as soon as it is read.
    window.history.replaceState(window.history.state, '', paths.domainPicker.href());
    let active = true;
    decideLinkLanding(params, {
      hostSubdomain: tenantSubdomainOf(window.location.hostname, config.domain),
      config,
      api: consumerApi(),
    })
      .catch(() => ({
        kind: 'page' as const,
        path: paths.domainPicker.href(),
        pendingVerification: undefined,
      }))
      .then((decision) => {
        if (!active) return;
        if (decision.kind === 'portal') browserNavigation.replace(decision.url);
        else
          navigate(decision.path, {
            replace: true,
            state:
              decision.pendingVerification === undefined
                ? null
                : { pendingVerification: decision.pendingVerification },
          });
      });
    return () => {
      active = false;
    };
  }, [params, config, navigate]);

  return (
    <AuthCard title="Opening your link">
      <LoadingState label="Checking your link, one moment…" />
    </AuthCard>
  );
}
