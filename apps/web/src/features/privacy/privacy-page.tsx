import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { OrganizationContact } from '../../components/organization/organization-contact.tsx';
import { useOrganization } from '../../lib/organization.ts';

/** `/privacy`: what this sign-in service keeps of the people who use it, in plain words. */
export function PrivacyPage() {
  const organization = useOrganization();
  const organizationName = organization?.name ?? 'the organization that wrote to you';
  return (
    <AuthCard title="Privacy">
      <p>
        This service lets you reach your account with {organizationName}. It keeps as little about you as it
        can, and only to sign you in safely.
      </p>
      <h2 className="section-title">What you type</h2>
      <p>
        The answers you give to confirm who you are (the last 4 digits of your Social Security number, your
        ZIP code or your date of birth) are checked against the records {organizationName} holds and are not
        stored. Passwords of staff accounts are stored only in a form that cannot be turned back into the
        password.
      </p>
      <h2 className="section-title">What your browser keeps</h2>
      <p>
        While you are signed in, this browser tab keeps your sign-in, and a cookie lets the service renew it.
        Both end when you sign out, after a while without activity, or when you close the tab. There are no
        advertising or tracking cookies and no analytics.
      </p>
      <h2 className="section-title">What the service records</h2>
      <p>
        To protect your account, the service records sign-ins, failed attempts and the opening of links, with
        the time and the network address they came from. It sends e-mail only to help you sign in, such as
        one-time codes.
      </p>
      <h2 className="section-title">Questions about your account</h2>
      <p>Your account and the information about it belong to {organizationName}; ask them about it.</p>
      <OrganizationContact organization={organization} headingLevel={3} />
    </AuthCard>
  );
}
