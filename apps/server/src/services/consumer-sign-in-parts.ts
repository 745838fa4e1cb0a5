import type { Language } from '@entry/domain';
import type { ApiError } from '../api-error.ts';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { saveConsumerLanguage } from '../stores/consumers.ts';
import { findTenantByIdAndSubdomain, type SignInTenant } from '../stores/tenants.ts';
import { type EnqueueMailInput, oneTimeCodeMailKind } from './mail.ts';
import { mailTexts } from './mail-texts.ts';
import { mfaCodeLifetimeMs } from './mfa.ts';
import { createSubscriptionLinks } from './subscriptions.ts';

/**
 * What the consumer sign-in's flows share: the tenant they name, the refusals of a lock and of
 * too many code mails, a code's mail, the language a consumer keeps, and the audit row of a lockout.
 */

/**
 * The language of a consumer's code mail: the page's, where the person chose it there, else the
 * consumer's saved one, else the organization's default.
 */
export function mailLanguageOf(
  pageLanguage: Language | undefined,
  consumer: { language: Language | null },
  tenant: { defaultLanguage: Language | null },
): Language {
  return pageLanguage ?? consumer.language ?? tenant.defaultLanguage ?? 'en';
}

type AuditBase = { tenantId: number | null; ip: string };

export interface SignInParts {
  tenantOf(customerId: number, subdomain: string): Promise<SignInTenant>;
  locked(lockedUntil: Date | null): ApiError;
  tooManyCodeMails(retryAfterMs: number): ApiError;
  codeMail(
    tenant: Pick<SignInTenant, 'id' | 'subdomain' | 'debtCollector'>,
    to: string,
    code: string,
    issuedAt: Date,
    language: Language,
  ): EnqueueMailInput;
  keepLanguage(consumerId: number, language: Language | null, saved?: Language | null): Promise<void>;
  auditLockout(base: AuditBase, actor: string | null, detail: Record<string, unknown>): Promise<void>;
}

export function signInParts(ctx: AppContext): SignInParts {
  const { db, clock, audit } = ctx;
  const subscriptionLinks = createSubscriptionLinks(ctx.config, ctx.subscriptionKey);

  /** The tenant named by both its id and its subdomain; a mismatch is as unknown as a wrong id. */
  async function tenantOf(customerId: number, subdomain: string): Promise<SignInTenant> {
    const tenant = await findTenantByIdAndSubdomain(db, customerId, subdomain.toLowerCase());
    if (tenant === null) throw refuse('consumerTenantNotFound');
    return tenant;
  }
  /** The refusal of a locked verification or MFA step, saying when to try again where that is known. */
  const locked = (lockedUntil: Date | null) =>
    refuse('verificationLocked', {
      retryAt: { until: lockedUntil, now: clock.now() },
      attempts: { triesLeft: 0, lockedUntil },
    });
  const tooManyCodeMails = (retryAfterMs: number) =>
    refuse('tooManyCodeMails', {
      retryAt: { until: new Date(clock.now().getTime() + retryAfterMs), now: clock.now() },
    });
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
  const auditLockout = (base: AuditBase, actor: string | null, detail: Record<string, unknown>) =>
    audit.record({ ...base, event: 'consumer.verification.lockout', outcome: 'locked', actor, detail });
  return { tenantOf, locked, tooManyCodeMails, codeMail, keepLanguage, auditLockout };
}
