import { isApiError } from '@entry/client';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { paths } from '../../config/paths.ts';
import { textsOf, useLanguage } from '../../i18n/language.ts';
import { forgetLink, type PendingVerification, rememberLink } from '../../lib/pending-verification.ts';
import { usePortalServices } from '../../lib/session/portal-api.ts';
import { commonRefusalMessage } from '../../lib/session/sign-in-errors.ts';
import { consumerMessages } from './consumer-messages.ts';
import { landingPath } from './landing.ts';
import type { VerificationAnswers } from './verification-form.tsx';

export interface LookupTarget {
  subdomain: string;
  customerId: number;
  /** The link's identity token; null for a consumer who arrived without a link. */
  token: string | null;
}

/** What a refused lookup means for the page. */
export type LookupOutcome =
  /** A refusal to show beside the form. */
  | { kind: 'refused'; message: string }
  /** Verification is locked; `until` is null where the server did not say. */
  | { kind: 'locked'; until: Date | null }
  /** The link has expired: the expired-link page explains. */
  | { kind: 'expired' };

/**
 * When a lock ends: from the server's `Retry-After`, counted on this device's clock so a clock
 * that is off does not move the time shown, else from the body's `lockedUntil`.
 */
export function lockEndOf(error: unknown, now: number = Date.now()): Date | null {
  if (!isApiError(error)) return null;
  if (error.retryAfterSeconds !== undefined) return new Date(now + error.retryAfterSeconds * 1000);
  const until = error.body?.lockedUntil;
  return until === undefined ? null : new Date(until);
}

/** A wrong answer, with the tries it leaves where the server said. */
function noMatch(triesLeft: number | undefined): string {
  const texts = textsOf('consumer', consumerMessages);
  return triesLeft === undefined ? texts.noMatch : `${texts.noMatch} ${texts.triesLeft(triesLeft)}`;
}

/** What a refused lookup means: a message, a lock (with its end where known) or an expired link. */
export function lookupOutcome(error: unknown, now: number = Date.now()): LookupOutcome {
  if (!isApiError(error)) return { kind: 'refused', message: commonRefusalMessage(error) };
  const texts = textsOf('consumer', consumerMessages);
  const triesLeft = error.body?.triesLeft;
  switch (error.errorCode) {
    case 'InvalidSignIn':
    case 'Ambiguous':
      // The answer that used the last try locked verification: say so rather than "try again".
      if (triesLeft === 0) return { kind: 'locked', until: lockEndOf(error, now) };
      return {
        kind: 'refused',
        message: error.errorCode === 'Ambiguous' ? texts.ambiguous : noMatch(triesLeft),
      };
    case 'UserLocked':
      return { kind: 'locked', until: lockEndOf(error, now) };
    case 'TokenExpired':
      return { kind: 'expired' };
    case 'ItemNotFound':
      return { kind: 'refused', message: texts.notFound };
    default:
      return {
        kind: 'refused',
        message:
          error.status === 502 || error.status === 504
            ? texts.serviceUnavailable
            : commonRefusalMessage(error),
      };
  }
}

/** A lock in force: from the link as it was opened, then from the answers; over once its end has passed. */
function useLock(initialUntil: number | undefined) {
  const [lock, setLock] = useState<{ until: Date | null } | null>(() =>
    initialUntil !== undefined && initialUntil > Date.now() ? { until: new Date(initialUntil) } : null,
  );
  const endsAt = lock?.until?.getTime();
  useEffect(() => {
    if (endsAt === undefined) return;
    const timer = window.setTimeout(() => setLock(null), Math.max(0, endsAt - Date.now()));
    return () => window.clearTimeout(timer);
  }, [endsAt]);
  return [lock, setLock] as const;
}

/**
 * The verification step: a lookup sign-in, then the code step when the tenant asks for one, else
 * straight to the page the link targeted. An expired link goes to the expired-link page, and the
 * tab no longer leads back to it; a lock (the link's, as opened, or one the answers started)
 * replaces the form until it ends, and a lock the answers started stays with the link in this tab
 * and its history entry, so a reload or a return shows it too.
 */
export function useLookupSignIn(target: LookupTarget | null, pending: PendingVerification | null) {
  const services = usePortalServices();
  const api = services.api('consumer');
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [refusal, setRefusal] = useState<string | null>(null);
  const [lock, setLock] = useLock(pending?.lockedUntil);
  const language = useLanguage();

  function keepLock(until: Date) {
    if (pending === null) return;
    const locked: PendingVerification = { ...pending, lockedUntil: until.getTime() };
    rememberLink(services.storage, locked);
    navigate(pathname, { replace: true, state: { pendingVerification: locked } });
  }

  async function verify(answers: VerificationAnswers) {
    if (target === null) return;
    setRefusal(null);
    try {
      const { authToken } = await api.consumerAuth.lookupSignIn({ ...target, ...answers, language });
      if (authToken.hasRestrictedAccess) {
        navigate(paths.consumerPortal.mfa.href(), { replace: true, state: { pendingVerification: pending } });
      } else {
        navigate(landingPath(api.tokens, authToken.sessionGuid), { replace: true });
      }
    } catch (error) {
      const outcome = lookupOutcome(error);
      if (outcome.kind === 'expired') {
        forgetLink(services.storage);
        navigate(paths.consumerPortal.expiredLink.href(), { replace: true });
      } else if (outcome.kind === 'locked') {
        setLock({ until: outcome.until });
        if (outcome.until !== null) keepLock(outcome.until);
      } else setRefusal(outcome.message);
    }
  }

  return { verify, refusal, lock };
}
