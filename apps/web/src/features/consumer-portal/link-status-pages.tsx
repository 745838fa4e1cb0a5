import { Link } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { OrganizationContact } from '../../components/organization/organization-contact.tsx';
import { paths } from '../../config/paths.ts';
import { useOrganization } from '../../lib/organization.ts';
import { consumerStartPath } from '../../lib/pending-verification.ts';
import { usePortalServices } from '../../lib/session/portal-api.ts';

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
