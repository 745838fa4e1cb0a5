import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { OrganizationContact } from '../../components/organization/organization-contact.tsx';
import { paths } from '../../config/paths.ts';
import type { Catalogue } from '../../i18n/catalogue.ts';
import { useTexts } from '../../i18n/language.ts';
import { useOrganization } from '../../lib/organization.ts';
import { consumerStartPath, rememberedLink } from '../../lib/pending-verification.ts';
import { usePortalServices } from '../../lib/session/portal-api.ts';
import { sessionMessages } from '../../lib/session/session-messages.ts';
import type { SignedOutState } from '../../lib/session/use-sign-out.ts';
import { consumerMessages } from './consumer-messages.ts';

/** What the sign-out that led here said of its cause, if one did. */
function signedOutMessage(state: unknown, texts: Catalogue['session']): string {
  const cause =
    typeof state === 'object' && state !== null ? (state as Partial<SignedOutState>).signedOut : undefined;
  if (cause === 'idle') return texts.idleSignedOut;
  if (cause === 'person') return texts.signedOut;
  return texts.notSignedIn;
}

/**
 * Where a consumer who came with a Direct link lands after signing out (or being signed out): the
 * link would sign them in again by itself and undo the sign-out, so it opens again only on a click.
 * Without such a link the consumer belongs on the verification their way in asks for.
 */
export function SignedOutPage() {
  const organization = useOrganization();
  const { storage } = usePortalServices();
  const navigate = useNavigate();
  const { state } = useLocation();
  const texts = useTexts('consumer', consumerMessages);
  const sessionTexts = useTexts('session', sessionMessages);
  const link = rememberedLink(storage);
  if (link?.signInType !== 'Direct') return <Navigate to={consumerStartPath(storage)} replace />;
  return (
    <AuthCard title={texts.signedOut.title}>
      <p className="notice" role="status">
        {signedOutMessage(state, sessionTexts)}
      </p>
      <p>{texts.signedOut.openAgainHint(organization?.name ?? texts.theOrganization)}</p>
      <button
        type="button"
        className="button button--block"
        onClick={() => navigate(`/${encodeURIComponent(link.token)}`, { replace: true })}
      >
        {texts.signedOut.openAgain}
      </button>
    </AuthCard>
  );
}

/**
 * Where an expired or unknown link leads: what happened and what to do. A link that died is no
 * longer remembered, so confirming who you are leads to the questions that need no link.
 */
export function ExpiredLinkPage() {
  const organization = useOrganization();
  const { storage } = usePortalServices();
  const texts = useTexts('consumer', consumerMessages);
  return (
    <AuthCard title={texts.expired.title}>
      <p>{texts.expired.text}</p>
      <p>{texts.expired.hint(organization?.name ?? texts.theOrganization)}</p>
      <OrganizationContact organization={organization} />
      <Link className="button button--block" to={consumerStartPath(storage)}>
        {texts.confirmIdentity}
      </Link>
    </AuthCard>
  );
}

/** Where a Direct link leads when the sign-in failed for a reason other than the link itself. */
export function FailedConnectionPage() {
  const { storage } = usePortalServices();
  const texts = useTexts('consumer', consumerMessages);
  return (
    <AuthCard title={texts.failed.title}>
      <p className="notice notice--error">{texts.failed.text}</p>
      <p>{texts.failed.hint}</p>
      <div className="portal-actions">
        <Link className="button" to={consumerStartPath(storage)}>
          {texts.confirmIdentity}
        </Link>
        <Link className="button button--secondary" to={paths.domainPicker.href()}>
          {texts.failed.backToStart}
        </Link>
      </div>
    </AuthCard>
  );
}
