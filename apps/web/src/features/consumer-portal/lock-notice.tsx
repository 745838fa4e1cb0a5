import { OrganizationContact } from '../../components/organization/organization-contact.tsx';
import { useTexts } from '../../i18n/language.ts';
import { useOrganization } from '../../lib/organization.ts';
import { consumerMessages } from './consumer-messages.ts';
import { lockEndInWords } from './lock-time.ts';

/**
 * A locked verification, in place of its form: when to try again, in the person's time zone where
 * the server said, and whom to contact meanwhile.
 */
export function LockNotice({ until }: { until: Date | null }) {
  const organization = useOrganization();
  const texts = useTexts('consumer', consumerMessages);
  const who = organization?.name ?? texts.theOrganization;
  return (
    <>
      <div className="notice notice--error form-alert" role="alert">
        {until === null ? texts.locked(who) : texts.lockedUntil(lockEndInWords(until), who)}
      </div>
      <OrganizationContact organization={organization} />
    </>
  );
}
