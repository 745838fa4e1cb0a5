import { type AuthTokenResult, type Language, roleIdByScope } from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { giveBackCodeMail, takeCodeMail } from '../stores/code-mail-budget.ts';
import { findConsumerMailTarget } from '../stores/consumers.ts';
import { mailLanguageOf, type SignInParts } from './consumer-sign-in-parts.ts';
import { consumeMfaCode, resendMfaCode } from './mfa.ts';
import type { SessionPrincipal } from './sessions.ts';

/** The MFA step that follows a lookup: the code's check, and a new code on request. */

export interface ConsumerCodeStep {
  /**
   * The MFA step: the pending session becomes a full one with a new pair. The consumer keeps
   * `language`, else the page language its code was asked from.
   */
  completeMfa(
    principal: SessionPrincipal,
    mfaCode: string,
    ip: string,
    language?: Language,
  ): Promise<AuthTokenResult>;
  /** A new code for the pending session, voiding the earlier one, mailed in `language` where given. */
  resendMfaCode(principal: SessionPrincipal, ip: string, language?: Language): Promise<void>;
}

export function createConsumerCodeStep(ctx: AppContext, parts: SignInParts): ConsumerCodeStep {
  const { db, clock, sessions, audit } = ctx;
  const { locked, tooManyCodeMails, codeMail, keepLanguage, auditLockout } = parts;

  return {
    async completeMfa(principal, mfaCode, ip, language) {
      if (principal.accessType !== 'MfaPending') throw refuse('mfaNotPending');
      const audited = {
        event: 'consumer.sign-in.mfa',
        actor: `consumer:${principal.consumerId}`,
        tenantId: principal.tenantId,
        ip,
        detail: { sessionId: principal.sessionId },
      };
      if (principal.consumerId === null) throw refuse('mfaNotPending');
      const check = await consumeMfaCode(db, {
        sessionId: principal.sessionId,
        consumerId: principal.consumerId,
        code: mfaCode,
        pepper: ctx.pepper,
        now: clock.now(),
      });
      if (check.outcome === 'locked') {
        await audit.record({ ...audited, outcome: 'locked' });
        throw locked(check.lockedUntil);
      }
      if (check.outcome === 'wrong') {
        await audit.record({ ...audited, outcome: 'failure' });
        if (check.lockedNow) {
          await auditLockout(audited, audited.actor, { sessionId: principal.sessionId, mfa: true });
        }
        throw refuse('wrongMfaCode', {
          attempts: check.attempts,
          retryAt: { until: check.attempts.lockedUntil, now: clock.now() },
        });
      }
      const pair = await sessions.upgradeSession(principal.sessionId, {
        accessType: 'Consumer',
        hasRestrictedAccess: false,
        roleId: roleIdByScope.consumer,
      });
      await audit.record({ ...audited, outcome: 'success' });
      await keepLanguage(principal.consumerId, language ?? check.language);
      return pair;
    },
    async resendMfaCode(principal, ip, language) {
      const { consumerId, tenantId } = principal;
      if (principal.accessType !== 'MfaPending' || consumerId === null || tenantId === null) {
        throw refuse('mfaNotPending');
      }
      const target = await findConsumerMailTarget(db, consumerId);
      if (target === null || target.email === null) throw refuse('noAddressOnFile');
      const now = clock.now();
      const paid = await takeCodeMail(db, consumerId, now);
      if ('retryAfterMs' in paid) throw tooManyCodeMails(paid.retryAfterMs);
      const outcome = await resendMfaCode(db, {
        sessionId: principal.sessionId,
        pepper: ctx.pepper,
        now,
        language: language ?? null,
      });
      if ('retryAfterMs' in outcome) {
        await giveBackCodeMail(db, consumerId);
        throw refuse('resendTooSoon', {
          retryAt: { until: new Date(now.getTime() + outcome.retryAfterMs), now },
        });
      }
      await ctx.mail.enqueueMail(
        codeMail(
          target.tenant,
          target.email,
          outcome.code,
          now,
          mailLanguageOf(language, target, target.tenant),
        ),
      );
      await audit.record({
        event: 'consumer.sign-in.mfa.resend',
        outcome: 'success',
        actor: `consumer:${consumerId}`,
        tenantId,
        ip,
        detail: { sessionId: principal.sessionId },
      });
    },
  };
}
