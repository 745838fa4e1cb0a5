import {
  type AuthTokenResult,
  type IdentityTokenSignInRequest,
  type Language,
  type LookupSignInRequest,
  type VerificationField,
  verificationFieldsFor,
} from '@entry/domain';
import type { AppContext } from '../context.ts';
import type { StatementPart } from '../db/sql.ts';
import { type AttemptsLeft, refuse } from '../refusals.ts';
import { giveBackCodeMail, takeCodeMail, takeLookupCodeMail } from '../stores/code-mail-budget.ts';
import { findConsumerMailTarget, saveConsumerLanguage } from '../stores/consumers.ts';
import { directSignInEvent } from '../stores/direct-sign-ins.ts';
import { findIdentityTokenToVerify } from '../stores/identity-tokens.ts';
import { earlierPendingEndCause, endEarlierPendingSessions, revokeSession } from '../stores/sessions.ts';
import { findTenantByIdAndSubdomain, type SignInTenant } from '../stores/tenants.ts';
import { signInWithDirectLink } from './direct-sign-in.ts';
import { isExpired } from './identity-tokens.ts';
import {
  missingFields,
  type VerificationAnswers,
  type VerificationRefusal,
  type VerificationResult,
  type VerifiedConsumer,
  verifyWithoutToken,
  verifyWithToken,
} from './kba.ts';
import { type EnqueueMailInput, oneTimeCodeMailKind } from './mail.ts';
import { mailTexts } from './mail-texts.ts';
import { consumeMfaCode, firstMfaCode, generateMfaCode, mfaCodeLifetimeMs, resendMfaCode } from './mfa.ts';
import type { NewSession, ReservedSession, SessionPrincipal, WritesWithSession } from './sessions.ts';
import { createSubscriptionLinks } from './subscriptions.ts';

/**
 * Consumer sign-in (docs/rules.md#verification): with a Direct identity token, by knowledge-based
 * verification (lookup), and the MFA step that follows a lookup when the tenant requires it.
 *
 * Choices where the design leaves room (docs/decisions/004-consumer-sign-in-choices.md):
 * - identity-token sign-in with a token that needs verification: 400 InvalidValue on `token`
 *   (within the spec's statuses for the call; the guard only sends Direct tokens here);
 * - a customerId and subdomain that do not name the same tenant: 404 ItemNotFound, as an unknown
 *   tenant; a token of another tenant: 404 ItemNotFound, as an unknown token;
 * - lookup with an expired token: 404 TokenExpired, as the identity-token sign-in;
 * - MFA required but no address on file: 409 InvalidState (a code cannot be delivered);
 * - the MFA call with a full session: 409 InvalidState (nothing is pending);
 * - resend within a minute of the last code: 429 ToManyRequests with Retry-After.
 */

/** The role every full consumer session carries (every full token has a roleId; staff use 1 and 2). */
export const consumerRoleId = 3;

const codeMailLimitCause = 'code mails per hour used up';

/**
 * The language of a consumer's code mail: the page's, where the person chose it there, else the
 * consumer's saved one, else the organization's default.
 */
function mailLanguageOf(
  pageLanguage: Language | undefined,
  consumer: { language: Language | null },
  tenant: { defaultLanguage: Language | null },
): Language {
  return pageLanguage ?? consumer.language ?? tenant.defaultLanguage ?? 'en';
}

export interface ConsumerSignIn {
  /** A Direct link's sign-in: the first token pair. */
  withIdentityToken(body: IdentityTokenSignInRequest, ip: string): Promise<AuthTokenResult>;
  /** A lookup: a full session, or a pending one whose code is on its way. */
  withLookup(body: LookupSignInRequest, ip: string): Promise<AuthTokenResult>;
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

/** What a verified lookup writes, and the session it opens (none: MFA with no address on file). */
interface LookupPlan {
  writes: StatementPart[];
  opened: { reserved: ReservedSession; session: NewSession } | null;
  /** The code's mail, sent once the consumer's hourly budget of code mails allows it. */
  codeMail: PendingCodeMail | null;
}

interface PendingCodeMail {
  consumerId: number;
  mail: EnqueueMailInput;
}

export function createConsumerSignIn(ctx: AppContext): ConsumerSignIn {
  const { db, clock, sessions, audit } = ctx;
  const subscriptionLinks = createSubscriptionLinks(ctx.config, ctx.subscriptionKey);

  /** The tenant named by both its id and its subdomain; a mismatch is as unknown as a wrong id. */
  async function tenantOf(customerId: number, subdomain: string): Promise<SignInTenant> {
    const tenant = await findTenantByIdAndSubdomain(db, customerId, subdomain.toLowerCase());
    if (tenant === null) throw refuse('consumerTenantNotFound');
    return tenant;
  }

  /**
   * The token of the tenant named by `customerId` and `subdomain`, with its consumer's row for the
   * verification. The token names its tenant, so a good link costs one read; the tenant alone is
   * read only to tell an unknown tenant (which answers first) from an unknown token.
   */
  async function tokenOfTenant(tokenParam: string, customerId: number, subdomain: string) {
    const found = await findIdentityTokenToVerify(db, tokenParam);
    if (
      found !== null &&
      found.record.tenant.id === customerId &&
      found.record.tenant.subdomain === subdomain.toLowerCase()
    ) {
      return found;
    }
    await tenantOf(customerId, subdomain);
    throw refuse('linkNotFound');
  }

  /** The refusal of a locked verification or MFA step, saying when to try again where that is known. */
  const locked = (lockedUntil: Date | null) =>
    refuse('verificationLocked', {
      retryAt: { until: lockedUntil, now: clock.now() },
      attempts: { triesLeft: 0, lockedUntil },
    });

  /** A refused answer, with the tries it leaves, and when the lock it started ends. */
  const refusedAnswer = (name: 'verificationMismatch' | 'verificationAmbiguous', attempts: AttemptsLeft) =>
    refuse(name, { attempts, retryAt: { until: attempts.lockedUntil, now: clock.now() } });

  const tooManyCodeMails = (retryAfterMs: number) =>
    refuse('tooManyCodeMails', {
      retryAt: { until: new Date(clock.now().getTime() + retryAfterMs), now: clock.now() },
    });

  /**
   * A full session, or where the tenant requires MFA a pending one with its code and the code's
   * mail; no session where MFA is required and no address is on file (a code cannot be sent). The
   * audit row of the outcome is one of the writes.
   */
  function lookupPlan(input: {
    tenant: SignInTenant;
    mfaNeeded: boolean;
    tokenGuid: string | null;
    consumer: VerifiedConsumer;
    pageLanguage: Language | undefined;
    ip: string;
    now: Date;
  }): LookupPlan {
    const { tenant, tokenGuid, consumer } = input;
    const audited = (outcome: 'success' | 'failure', detail: Record<string, unknown>) =>
      audit.insertOf({
        event: 'consumer.sign-in.lookup',
        actor: `consumer:${consumer.id}`,
        tenantId: tenant.id,
        ip: input.ip,
        outcome,
        detail: { identityToken: tokenGuid, ...detail },
      });
    const signedIn = {
      scope: 'consumer',
      tenantId: tenant.id,
      consumerId: consumer.id,
      identityTokenGuid: tokenGuid,
    } as const;
    const opening = (
      session: NewSession,
      alongside: WritesWithSession,
      codeMail: PendingCodeMail | null = null,
    ): LookupPlan => {
      const reserved = sessions.reserve();
      return {
        opened: { reserved, session },
        writes: [...reserved.inserts(session), ...alongside(reserved.id)],
        codeMail,
      };
    };
    if (!input.mfaNeeded) {
      return opening(
        { ...signedIn, accessType: 'Consumer', hasRestrictedAccess: false, roleId: consumerRoleId },
        () => [audited('success', { mfa: false })],
      );
    }
    const email = consumer.email;
    if (email === null || email.trim() === '') {
      return { opened: null, writes: [audited('failure', { noAddress: true })], codeMail: null };
    }
    const code = generateMfaCode();
    return opening(
      { ...signedIn, accessType: 'MfaPending', hasRestrictedAccess: true, roleId: null },
      (sessionId) => [
        firstMfaCode({
          sessionId,
          code,
          pepper: ctx.pepper,
          now: input.now,
          language: input.pageLanguage ?? null,
        }),
        audited('success', { mfa: 'pending' }),
      ],
      {
        consumerId: consumer.id,
        mail: codeMail(tenant, email, code, input.now, mailLanguageOf(input.pageLanguage, consumer, tenant)),
      },
    );
  }

  /** The mail of a code issued at `issuedAt`, in `language`: dropped unsent once the code has expired. */
  function codeMail(
    tenant: Pick<SignInTenant, 'id' | 'subdomain' | 'debtCollector'>,
    to: string,
    code: string,
    issuedAt: Date,
    language: Language,
  ): EnqueueMailInput {
    const texts = mailTexts[language];
    return {
      kind: oneTimeCodeMailKind,
      language,
      debtCollector: tenant.debtCollector,
      tenantId: tenant.id,
      to,
      subject: texts.codeSubject,
      text: texts.codeText(code, mfaCodeLifetimeMs / 60_000),
      unsubscribe: subscriptionLinks.unsubscribeLinksFor(
        tenant,
        { customerId: tenant.id, emailAddress: to },
        language,
      ),
      expiresAt: new Date(issuedAt.getTime() + mfaCodeLifetimeMs),
    };
  }

  /**
   * Keeps the language of the page a consumer completed a sign-in from, when the page named one;
   * `saved`, where the caller read it, spares the write of a language already kept.
   */
  async function keepLanguage(consumerId: number, language: Language | null, saved: Language | null = null) {
    if (language !== null && language !== saved) await saveConsumerLanguage(db, consumerId, language);
  }

  type AuditBase = { tenantId: number | null; ip: string };

  const auditLockout = (base: AuditBase, actor: string | null, detail: Record<string, unknown>) =>
    audit.record({ ...base, event: 'consumer.verification.lockout', outcome: 'locked', actor, detail });

  /**
   * Mails a pending session's code within the consumer's hourly budget of code mails, ending the
   * consumer's earlier pending sessions with it; past the budget, ends the session it opened and
   * refuses with 429.
   */
  async function sendCode(
    pending: PendingCodeMail,
    sessionId: string,
    tenant: SignInTenant,
    ip: string,
    now: Date,
  ): Promise<void> {
    const paid = await takeLookupCodeMail(db, {
      consumerId: pending.consumerId,
      sessionId,
      now,
      mailInsert: (where) => ctx.mail.insertOf(pending.mail, where),
    });
    if ('retryAfterMs' in paid) {
      await revokeSession(db, sessionId, codeMailLimitCause, now);
      await auditSessionEnds(pending.consumerId, [sessionId], codeMailLimitCause, tenant, ip);
      throw tooManyCodeMails(paid.retryAfterMs);
    }
    await auditSessionEnds(pending.consumerId, paid.ended, earlierPendingEndCause, tenant, ip);
  }

  /** The audit rows of a consumer's sessions that a lookup ended, in one insert. */
  const auditSessionEnds = (
    consumerId: number,
    sessionIds: readonly string[],
    cause: string,
    tenant: SignInTenant,
    ip: string,
  ) =>
    audit.recordMany(
      sessionIds.map((sessionId) => ({
        event: 'consumer.session.end',
        outcome: 'revoked',
        actor: `consumer:${consumerId}`,
        tenantId: tenant.id,
        ip,
        detail: { sessionId, cause },
      })),
    );

  /** Turns a verification that did not succeed into its audit rows and its error. */
  async function refuseVerification(
    ip: string,
    tenant: SignInTenant,
    result: VerificationRefusal,
    tokenGuid: string | null,
  ): Promise<never> {
    const base = { tenantId: tenant.id, ip, detail: { identityToken: tokenGuid } };
    switch (result.outcome) {
      case 'locked':
        await audit.record({
          ...base,
          event: 'consumer.sign-in.lookup',
          outcome: 'locked',
          actor: result.consumer === null ? null : `consumer:${result.consumer.id}`,
        });
        throw locked(result.lockedUntil);
      case 'ambiguous':
        await audit.record({
          ...base,
          event: 'consumer.sign-in.lookup',
          outcome: 'failure',
          detail: { ambiguous: true },
        });
        if (result.lockedNow) await auditLockout(base, null, { tokenless: true });
        throw refusedAnswer('verificationAmbiguous', result.attempts);
      case 'mismatch': {
        const actor = result.consumer === null ? null : `consumer:${result.consumer.id}`;
        await audit.record({ ...base, event: 'consumer.sign-in.lookup', outcome: 'failure', actor });
        if (result.tokenLockedNow || result.consumerLockedNow) {
          await auditLockout(base, actor, {
            identityToken: tokenGuid,
            token: result.tokenLockedNow,
            consumer: result.consumerLockedNow,
          });
        }
        throw refusedAnswer('verificationMismatch', result.attempts);
      }
    }
  }

  function requireFields(fields: readonly VerificationField[]): void {
    if (fields.length === 0) return;
    throw refuse('verificationFieldRequired', { fields: [...fields] });
  }

  return {
    async withIdentityToken(body, ip) {
      const signIn = await signInWithDirectLink(ctx, body, ip, consumerRoleId);
      if (signIn.outcome === 'unknown') {
        await tenantOf(body.customerId, body.subdomain);
        throw refuse('linkNotFound');
      }
      const { token } = signIn;
      if (signIn.outcome === 'signed-in') {
        await keepLanguage(token.consumerId, body.language ?? null, signIn.consumerLanguage);
        return signIn.pair;
      }
      const refused = {
        event: directSignInEvent,
        actor: `consumer:${token.consumerId}`,
        tenantId: token.tenantId,
        ip,
        outcome: 'failure',
      } as const;
      if (signIn.outcome === 'not-direct') {
        await audit.record({ ...refused, detail: { identityToken: token.guid } });
        throw refuse('notDirectToken');
      }
      await audit.record({ ...refused, detail: { identityToken: token.guid, expired: true } });
      throw refuse('linkExpired');
    },

    async withLookup(body, ip) {
      const answers: VerificationAnswers = {
        last4Ssn: body.last4Ssn,
        postalCode: body.postalCode,
        dateOfBirth: body.dateOfBirth,
      };
      const now = clock.now();
      const tokenParam = body.token ?? '';
      const found =
        tokenParam === '' ? null : await tokenOfTenant(tokenParam, body.customerId, body.subdomain);
      const record = found?.record ?? null;
      const tenant = record?.tenant ?? (await tenantOf(body.customerId, body.subdomain));
      const tokenGuid = record?.token.guid ?? null;
      if (record !== null && isExpired(record.token, now)) throw refuse('linkExpired');
      requireFields(missingFields(record?.token.signInType ?? null, answers));

      // A consumer without a link is always asked for the mailed code.
      const mfaNeeded = tenant.mfaRequired || found === null;
      const plan = (consumer: VerifiedConsumer) =>
        lookupPlan({ tenant, mfaNeeded, tokenGuid, consumer, pageLanguage: body.language, ip, now });
      const verification = { answers, pepper: ctx.pepper, now };
      let result: VerificationResult<LookupPlan>;
      if (found === null) {
        result = await verifyWithoutToken(db, { ...verification, tenantId: tenant.id, onSuccess: plan });
      } else {
        const { token } = found.record;
        result = await verifyWithToken(db, {
          ...verification,
          onSuccess: plan,
          asRead: { consumer: found.consumerRow, token },
          token: { guid: token.guid, shortId: token.shortId },
          fields: verificationFieldsFor(token.signInType),
        });
      }
      if (result.outcome !== 'verified') return refuseVerification(ip, tenant, result, tokenGuid);

      const { opened, codeMail: pending } = result.plan;
      if (opened === null) throw refuse('noAddressOnFile');
      const { reserved, session } = opened;
      if (pending === null) {
        const ended = await endEarlierPendingSessions(db, result.consumer.id, reserved.id, now);
        await auditSessionEnds(result.consumer.id, ended, earlierPendingEndCause, tenant, ip);
        await keepLanguage(result.consumer.id, body.language ?? null, result.consumer.language);
      } else {
        await sendCode(pending, reserved.id, tenant, ip, now);
      }
      const authToken = await reserved.firstPair(session, {
        consumerName: result.consumer.name,
        staffName: null,
        launchedByName: null,
      });
      if (session.hasRestrictedAccess) ctx.mail.deliverSoon();
      return authToken;
    },

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
        roleId: consumerRoleId,
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
