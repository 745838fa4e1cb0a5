import { tenantSubdomainOf } from '@entry/domain';
import { useCallback, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { LoadingState } from '../../components/loading-state.tsx';
import { UnreachableNotice } from '../../components/unreachable-notice.tsx';
import { useAppConfig } from '../../config/app-config-context.tsx';
import { paths } from '../../config/paths.ts';
import { useTexts } from '../../i18n/language.ts';
import { consumerApi } from '../../lib/api-client.ts';
import { browserNavigation } from '../../lib/navigation.ts';
import { decideLinkLanding, type LinkDecision, type LinkParams } from './link-guard.ts';
import { linkLandingTexts } from './link-landing-texts.ts';

const toEmptyPath: LinkDecision = { kind: 'page', path: paths.domainPicker.href() };

/**
 * `:token`, `:token/:target`, `:token/:target/:targetId`: opens a link from a letter or an e-mail.
 * The link stays in the address until it has been decided, so while the server cannot be reached
 * the page can try it again (on request, and when the browser comes back online) and a reload works.
 * Every decision replaces the link's history entry, so the token does not stay in the history.
 */
export function LinkLandingPage() {
  const config = useAppConfig();
  const navigate = useNavigate();
  const routeParams = useParams();
  // Read once: the decision must not run again because the address changed.
  const [params] = useState<LinkParams>(() => ({
    token: routeParams.token,
    target: routeParams.target,
    targetId: routeParams.targetId,
  }));
  const texts = useTexts('linkLanding', linkLandingTexts);
  const [attempt, setAttempt] = useState(0);
  const [unreachable, setUnreachable] = useState(false);
  const tryAgain = useCallback(() => {
    setUnreachable(false);
    setAttempt((count) => count + 1);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is the request to decide the same link again.
  useEffect(() => {
    let active = true;
    decideLinkLanding(params, {
      hostSubdomain: tenantSubdomainOf(window.location.hostname, config.domain),
      config,
      api: consumerApi(),
      storage: window.sessionStorage,
    })
      .catch(() => toEmptyPath)
      .then((decision) => {
        if (!active) return;
        if (decision.kind === 'unreachable') setUnreachable(true);
        else if (decision.kind === 'portal') browserNavigation.replace(decision.url);
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
  }, [params, config, navigate, attempt]);

  if (unreachable) {
    return (
      <AuthCard title={texts.notOpenedYet}>
        <UnreachableNotice onRetry={tryAgain}>
          <p>{texts.stillWorks}</p>
        </UnreachableNotice>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={texts.opening}>
      <LoadingState label={texts.checking} />
    </AuthCard>
  );
}
