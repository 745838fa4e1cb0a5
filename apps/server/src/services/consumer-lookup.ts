import {
  type AuthTokenResult,
  type Language,
  type LookupSignInRequest,
  roleIdByScope,
  type VerificationField,
  verificationFieldsFor,
} from '@entry/domain';
import type { AttemptsLeft } from '../api-error.ts';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { takeLookupCodeMail } from '../stores/code-mail-budget.ts';
import { findIdentityTokenToVerify } from '../stores/identity-tokens.ts';
import type { RowWrites } from '../stores/row-writes.ts';
import { earlierPendingEndCause, endEarlierPendingSessions } from '../stores/session-endings.ts';
import { revokeSession } from '../stores/sessions.ts';
import type { SignInTenant } from '../stores/tenants.ts';
import { writeTokenlessSuccess } from '../stores/verifications.ts';
import { mailLanguageOf, type SignInParts } from './consumer-sign-in-parts.ts';
import { isExpired } from './identity-tokens.ts';
import {
  consumerOf,
  missingFields,
  type VerificationAnswers,
  type VerificationRefusal,
  type VerifiedConsumer,
  verifyWithoutToken,
  verifyWithToken,
} from './kba.ts';
import type { EnqueueMailInput } from './mail.ts';
import { generateMfaCode, mfaCodeRow } from './mfa.ts';
import type { NewSession, ReservedSession } from './sessions.ts';

/**
 * A consumer's lookup sign-in: knowledge-based verification with or without a link, then a full
 * session, or where the tenant requires MFA a pending one whose code is mailed.
 */

const codeMailLimitCause = 'code mails per hour used up';
/** What a verified lookup writes, and the session it opens (none: MFA with no address on file). */
interface LookupPlan {
  writes: RowWrites;
  opened: { reserved: ReservedSession; session: NewSession } | null;
  /** The code's mail, sent once the consumer's hourly budget of code mails allows it. */
  codeMail: PendingCodeMail | null;
}

interface PendingCodeMail {
  consumerId: number;
  mail: EnqueueMailInput;
}
export interface ConsumerLookup {
  /** A lookup: a full session, or a pending one whose code is on its way. */
  withLookup(body: LookupSignInRequest, ip: string): Promise<AuthTokenResult>;
}

export function createConsumerLookup(ctx: AppContext, parts: SignInParts): ConsumerLookup {
  const { db, clock, sessions, audit } = ctx;
  const { tenantOf, locked, tooManyCodeMails, codeMail, keepLanguage, auditLockout } = parts;

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
  /** A refused answer, with the tries it leaves, and when the lock it started ends. */
  const refusedAnswer = (name: 'verificationMismatch' | 'verificationAmbiguous', attempts: AttemptsLeft) =>
    refuse(name, { attempts, retryAt: { until: attempts.lockedUntil, now: clock.now() } });
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
      audit.rowOf({
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
      alongside: (sessionId: string) => Omit<RowWrites, 'sessions'>,
      codeMail: PendingCodeMail | null = null,
    ): LookupPlan => {
      const reserved = sessions.reserve();
      return {
        opened: { reserved, session },
        writes: { ...reserved.rows(session), ...alongside(reserved.id) },
        codeMail,
      };
    };
    if (!input.mfaNeeded) {
      return opening(
        { ...signedIn, accessType: 'Consumer', hasRestrictedAccess: false, roleId: roleIdByScope.consumer },
        () => ({ auditRows: [audited('success', { mfa: false })] }),
      );
    }
    const email = consumer.email;
    if (email === null || email.trim() === '') {
      return {
        opened: null,
        writes: { auditRows: [audited('failure', { noAddress: true })] },
        codeMail: null,
      };
    }
    const code = generateMfaCode();
    return opening(
      { ...signedIn, accessType: 'MfaPending', hasRestrictedAccess: true, roleId: null },
      (sessionId) => ({
        mfaCodes: [
          mfaCodeRow({
            sessionId,
            code,
            pepper: ctx.pepper,
            now: input.now,
            language: input.pageLanguage ?? null,
          }),
        ],
        auditRows: [audited('success', { mfa: 'pending' })],
      }),
      {
        consumerId: consumer.id,
        mail: codeMail(tenant, email, code, input.now, mailLanguageOf(input.pageLanguage, consumer, tenant)),
      },
    );
  }
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
      mail: ctx.mail.rowOf(pending.mail),
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
      // What a success leads to is decided once, before the verification: a race that decides the
      // answer again under the row locks writes the same session and code.
      const planFor = (consumer: VerifiedConsumer) =>
        lookupPlan({ tenant, mfaNeeded, tokenGuid, consumer, pageLanguage: body.language, ip, now });
      const verification = { answers, pepper: ctx.pepper, now };
      let verified: { consumer: VerifiedConsumer; plan: LookupPlan };
      if (found === null) {
        const result = await verifyWithoutToken(db, { ...verification, tenantId: tenant.id });
        if (result.outcome !== 'verified') return refuseVerification(ip, tenant, result, tokenGuid);
        verified = { consumer: result.consumer, plan: planFor(result.consumer) };
        await writeTokenlessSuccess(db, verified.plan.writes);
      } else {
        const { token } = found.record;
        const plan = planFor(consumerOf(found.consumerRow));
        const result = await verifyWithToken(db, {
          ...verification,
          successWrites: plan.writes,
          asRead: { consumer: found.consumerRow, token },
          token: { guid: token.guid, shortId: token.shortId },
          fields: verificationFieldsFor(token.signInType),
        });
        if (result.outcome !== 'verified') return refuseVerification(ip, tenant, result, tokenGuid);
        verified = { consumer: result.consumer, plan };
      }
      const { consumer, plan } = verified;
      const { opened, codeMail: pending } = plan;
      if (opened === null) throw refuse('noAddressOnFile');
      const { reserved, session } = opened;
      if (pending === null) {
        const ended = await endEarlierPendingSessions(db, consumer.id, reserved.id, now);
        await auditSessionEnds(consumer.id, ended, earlierPendingEndCause, tenant, ip);
        await keepLanguage(consumer.id, body.language ?? null, consumer.language);
      } else {
        await sendCode(pending, reserved.id, tenant, ip, now);
      }
      const authToken = await reserved.firstPair(session, {
        consumerName: consumer.name,
        staffName: null,
        launchedByName: null,
      });
      if (session.hasRestrictedAccess) ctx.mail.deliverSoon();
      return authToken;
    },
  };
}
