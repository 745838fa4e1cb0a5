import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { OrganizationContact } from '../../components/organization/organization-contact.tsx';
import { paths } from '../../config/paths.ts';
import { useOrganization } from '../../lib/organization.ts';
import { consumerStartPath, rememberedLink } from '../../lib/pending-verification.ts';
import { usePortalServices } from '../../lib/session/portal-api.ts';
import { sessionMessages } from '../../lib/session/session-messages.ts';
import type { SignedOutState } from '../../lib/session/use-sign-out.ts';
import { consumerMessages } from './consumer-messages.ts';

/** What the sign-out that led here said of its cause, if one did. */
function signedOutMessage(state: unknown): string {
  const cause =
    typeof state === 'object' && state !== null ? (state as Partial<SignedOutState>).signedOut : undefined;
  if (cause === 'idle') return sessionMessages.idleSignedOut;
  if (cause === 'person') return sessionMessages.signedOut;
  return sessionMessages.notSignedIn;
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
  const link = rememberedLink(storage);
  if (link?.signInType !== 'Direct') return <Navigate to={consumerStartPath(storage)} replace />;
  return (
    <AuthCard title="Signed out">
      <p className="notice" role="status">
        {signedOutMessage(state)}
      </p>
      <p>
        To see your account with {organization?.name ?? consumerMessages.theOrganization} again, open your
        link again. Otherwise you can close this page.
      </p>
      <button
        type="button"
        className="button button--block"
        onClick={() => navigate(`/${encodeURIComponent(link.token)}`, { replace: true })}
      >
        Open your link again
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
  return (
    <AuthCard title="This link has expired">
      <p>
        The link you opened is no longer valid. Links in letters and e-mails work for a limited time to keep
        your account safe.
      </p>
      <p>
        You can still reach your account by confirming who you are, or ask{' '}
        {organization?.name ?? 'the organization that wrote to you'} for a new link.
      </p>
      <OrganizationContact organization={organization} />
      <Link className="button button--block" to={consumerStartPath(storage)}>
        Confirm your identity
      </Link>
    </AuthCard>
  );
}

/** Where a Direct link leads when the sign-in failed for a reason other than the link itself. */
export function FailedConnectionPage() {
  const { storage } = usePortalServices();
  return (
    <AuthCard title="We could not sign you in">
      <p className="notice notice--error">
        The connection to our service failed while opening your link. Nothing has changed on your account.
      </p>
      <p>
        Please try again: open the link from your letter or e-mail again in a few minutes, or confirm who you
        are to reach your account now.
      </p>
      <div className="portal-actions">
        <Link className="button" to={consumerStartPath(storage)}>
          Confirm your identity
        </Link>
        <Link className="button button--secondary" to={paths.domainPicker.href()}>
          Back to the start
        </Link>
      </div>
    </AuthCard>
  );
}
