import { isUnreachable } from '@entry/client';
import { tenantSubdomainOf, verificationFieldsFor } from '@entry/domain';
import { startTransition, useCallback, useEffect, useState } from 'react';
import { Navigate, useLocation } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { layoutTexts } from '../../components/auth-layout/layout-texts.ts';
import { FormAlert } from '../../components/form-field.tsx';
import { LoadingState } from '../../components/loading-state.tsx';
import { UnreachableNotice } from '../../components/unreachable-notice.tsx';
import { useAppConfig } from '../../config/app-config-context.tsx';
import { paths } from '../../config/paths.ts';
import { useTexts } from '../../i18n/language.ts';
import { lookUpOrganization } from '../../lib/organization.ts';
import {
  asksOneAnswer,
  type PendingVerification,
  pendingVerificationOf,
  rememberedLink,
} from '../../lib/pending-verification.ts';
import { usePortalApi, usePortalServices } from '../../lib/session/portal-api.ts';
import { consumerMessages } from './consumer-messages.ts';
import { LockNotice } from './lock-notice.tsx';
import { type LookupTarget, useLookupSignIn } from './use-lookup-sign-in.ts';
import { VerificationForm } from './verification-form.tsx';

/**
 * The link being verified: handed over by the link guard, or remembered in this tab when the
 * consumer comes back (sign-out, "Start again", an ended session). Only a link of the page's kind.
 */
function usePendingVerification(asks: 'oneAnswer' | 'allAnswers'): PendingVerification | null {
  const { state } = useLocation();
  const { storage } = usePortalServices();
  const pending = pendingVerificationOf(state) ?? rememberedLink(storage);
  return pending !== null && asksOneAnswer(pending) === (asks === 'oneAnswer') ? pending : null;
}

/** `/c/verify-token`: a link whose sign-in type asks for one answer. */
export function VerifyTokenPage() {
  const pending = usePendingVerification('oneAnswer');
  const target: LookupTarget | null =
    pending === null
      ? null
      : { subdomain: pending.subdomain, customerId: pending.customerId, token: pending.token };
  const { verify, refusal, lock } = useLookupSignIn(target, pending);
  const texts = useTexts('consumer', consumerMessages).verify;
  if (pending === null || !(pending.signInType in texts.askedFor)) {
    return <Navigate to={paths.consumerPortal.verifyIdentity.href()} replace />;
  }
  const asked = texts.askedFor[pending.signInType as keyof typeof texts.askedFor];
  return (
    <AuthCard title={texts.title}>
      <p>{texts.intro(asked)}</p>
      {lock === null ? (
        <VerificationForm
          fields={verificationFieldsFor(pending.signInType)}
          submitLabel={texts.submit}
          refusal={refusal}
          onSubmit={verify}
        />
      ) : (
        <LockNotice until={lock.until} />
      )}
    </AuthCard>
  );
}

type HostTenant = LookupTarget | 'loading' | 'none' | 'unreachable';

/** The tenant of this host, for a consumer who arrived without a link; `retry` looks it up again. */
function useHostTenant(skip: boolean): { tenant: HostTenant; retry: () => void } {
  const config = useAppConfig();
  const access = usePortalApi('consumer').access;
  const [tenant, setTenant] = useState<HostTenant>(skip ? 'none' : 'loading');
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => {
    setTenant('loading');
    setAttempt((count) => count + 1);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is the request to look the host up again.
  useEffect(() => {
    if (skip) return;
    const subdomain = tenantSubdomainOf(window.location.hostname, config.domain);
    if (subdomain === null) {
      setTenant('none');
      return;
    }
    let active = true;
    lookUpOrganization(access, subdomain, { explainedByPage: true })
      .then((result) => {
        if (!active) return;
        // The form's first render (every field at once) was one long task; as a
        // transition, React renders it in slices and the main thread stays free between them.
        startTransition(() =>
          setTenant({ subdomain: result.subdomain, customerId: result.customerId, token: null }),
        );
      })
      .catch((error: unknown) => {
        if (active) setTenant(isUnreachable(error) ? 'unreachable' : 'none');
      });
    return () => {
      active = false;
    };
  }, [skip, access, config.domain, attempt]);
  return { tenant, retry };
}

/**
 * `/c/verify-identity`: all three answers, for a link that asks for every one (sign-in type None)
 * or a consumer who arrived without a link (docs/rules.md#verification).
 */
export function VerifyIdentityPage() {
  const pending = usePendingVerification('allAnswers');
  const { tenant: hostTenant, retry } = useHostTenant(pending !== null);
  const target: LookupTarget | null =
    pending !== null
      ? { subdomain: pending.subdomain, customerId: pending.customerId, token: pending.token }
      : typeof hostTenant === 'object'
        ? hostTenant
        : null;
  const { verify, refusal, lock } = useLookupSignIn(target, pending);
  const texts = useTexts('consumer', consumerMessages);
  const layout = useTexts('layout', layoutTexts);
  const title = texts.verify.identityTitle;

  if (hostTenant === 'unreachable') {
    return (
      <AuthCard title={title}>
        <UnreachableNotice onRetry={retry} />
      </AuthCard>
    );
  }
  if (target === null && hostTenant !== 'loading') {
    return (
      <AuthCard title={title}>
        <FormAlert>{texts.noPortal}</FormAlert>
      </AuthCard>
    );
  }
  // The explanation shows while the host's organization is looked up: it is the page's largest
  // text, and waiting for that call held back its first meaningful paint (docs/rules.md#budgets).
  return (
    <AuthCard title={title}>
      <p>{texts.verify.identityIntro}</p>
      {lock !== null ? (
        <LockNotice until={lock.until} />
      ) : target === null ? (
        <LoadingState label={layout.loading} />
      ) : (
        <VerificationForm
          fields={verificationFieldsFor(null)}
          submitLabel={texts.verify.submit}
          refusal={refusal}
          onSubmit={verify}
        />
      )}
    </AuthCard>
  );
}
