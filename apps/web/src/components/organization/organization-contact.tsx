import { useTexts } from '../../i18n/language.ts';
import type { Organization } from '../../lib/organization.ts';
import { organizationTexts } from './organization-texts.ts';

/** A phone number as a `tel:` address: a US number of 10 digits gets its country code. */
function telHref(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (phone.trim().startsWith('+')) return `tel:+${digits}`;
  return `tel:+${digits.length === 10 ? `1${digits}` : digits}`;
}

/** A web address as people read it: without the scheme and a lone trailing slash. */
function shownAddress(url: string): string {
  return url.replace(/^https?:\/\//i, '').replace(/\/$/, '');
}

/** Whether the organization has given any way to reach it. */
function hasContact(organization: Organization | null): organization is Organization {
  const contact = organization?.contact;
  return (
    contact !== undefined && [contact.phone, contact.email, contact.hours, contact.website].some(Boolean)
  );
}

/** The ways to reach the organization it has given: phone, e-mail, hours and web address. */
function ContactDetails({ organization }: { organization: Organization }) {
  const { phone, email, hours, website } = organization.contact;
  const labels = useTexts('organization', organizationTexts).contact;
  return (
    <dl className="contact-details">
      {phone !== null && (
        <>
          <dt>{labels.phone}</dt>
          <dd>
            <a href={telHref(phone)}>{phone}</a>
          </dd>
        </>
      )}
      {email !== null && (
        <>
          <dt>{labels.email}</dt>
          <dd>
            <a href={`mailto:${email}`}>{email}</a>
          </dd>
        </>
      )}
      {hours !== null && (
        <>
          <dt>{labels.hours}</dt>
          <dd>{hours}</dd>
        </>
      )}
      {website !== null && /^https?:\/\//i.test(website) && (
        <>
          <dt>{labels.website}</dt>
          <dd>
            <a href={website}>{shownAddress(website)}</a>
          </dd>
        </>
      )}
    </dl>
  );
}

/** The footer's part of the organization's pages: its name, how to reach it, and its disclosure. */
export function OrganizationFooter({ organization }: { organization: Organization }) {
  const texts = useTexts('organization', organizationTexts);
  return (
    <div className="auth-footer__organization">
      <p className="auth-footer__name">{organization.name}</p>
      {hasContact(organization) && <ContactDetails organization={organization} />}
      {organization.debtCollector && <p className="auth-footer__disclosure">{texts.debtCollector}</p>}
    </div>
  );
}

/** "Contact {name}" and its details, where the organization has given any. */
export function OrganizationContact({
  organization,
  headingLevel = 2,
}: {
  organization: Organization | null;
  headingLevel?: 2 | 3;
}) {
  const texts = useTexts('organization', organizationTexts);
  if (!hasContact(organization)) return null;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className="organization-contact">
      <Heading className="organization-contact__title">{texts.contactOf(organization.name)}</Heading>
      <ContactDetails organization={organization} />
    </section>
  );
}
