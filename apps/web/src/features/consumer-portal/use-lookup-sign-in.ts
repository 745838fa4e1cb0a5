import { isApiError } from '@entry/client';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths.ts';
import { forgetLink, type PendingVerification } from '../../lib/pending-verification.ts';
import { usePortalServices } from '../../lib/session/portal-api.ts';
import { commonRefusalMessage, waitOf } from '../../lib/session/sign-in-errors.ts';
import { consumerMessages } from './consumer-messages.ts';
import { landingPath } from './landing.ts';
import type { VerificationAnswers } from './verification-form.tsx';

export interface LookupTarget {
  subdomain: string;
  customerId: number;
  /** The link's identity token; null for a consumer who arrived without a link. */
  token: string | null;
}

/** The refusal of a lookup, in plain words; null when the person is sent to another page instead. */
export function lookupRefusal(error: unknown): string | null {
  if (!isApiError(error)) return commonRefusalMessage(error);
  switch (error.errorCode) {
    case 'InvalidSignIn':
      return consumerMessages.noMatch;
    case 'UserLocked': {
      const wait = waitOf(error);
      return wait === undefined ? consumerMessages.locked : consumerMessages.lockedFor(wait);
    }
    case 'Ambiguous':
      return consumerMessages.ambiguous;
    case 'TokenExpired':
      return null;
    case 'ItemNotFound':
      return consumerMessages.notFound;
    default:
      return error.status === 502 || error.status === 504
        ? consumerMessages.serviceUnavailable
        : commonRefusalMessage(error);
  }
}

/**
 * The verification step: a lookup sign-in, then the code step when the tenant asks for one, else
 * straight to the page the link targeted. An expired link goes to the expired-link page, and the
 * tab no longer leads back to it.
 */
export function useLookupSignIn(target: LookupTarget | null, pending: PendingVerification | null) {
  const services = usePortalServices();
  const api = services.api('consumer');
  const navigate = useNavigate();
  const [refusal, setRefusal] = useState<string | null>(null);

  async function verify(answers: VerificationAnswers) {
    if (target === null) return;
    setRefusal(null);
    try {
      const { authToken } = await api.consumerAuth.lookupSignIn({ ...target, ...answers });
      if (authToken.hasRestrictedAccess) {
        navigate(paths.consumerPortal.mfa.href(), { replace: true, state: { pendingVerification: pending } });
      } else {
        navigate(landingPath(api.tokens, authToken.sessionGuid), { replace: true });
      }
    } catch (error) {
      const message = lookupRefusal(error);
      if (message === null) {
        forgetLink(services.storage);
        navigate(paths.consumerPortal.expiredLink.href(), { replace: true });
      } else setRefusal(message);
    }
  }

  return { verify, refusal };
}
