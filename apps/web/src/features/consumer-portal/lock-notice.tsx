import { OrganizationContact } from '../../components/organization/organization-contact.tsx';
import { lockEndInWords } from '../../lib/lock-time.ts';
import { useOrganization } from '../../lib/organization.ts';
import { consumerMessages } from './consumer-messages.ts';

/**
 * A locked verification, in place of its form: when to try again, in the person's time zone where
 * the server said, and whom to contact meanwhile.
 */
export function LockNotice({ until }: { until: Date | null }) {
  const organization = useOrganization();
  const who = organization?.name ?? consumerMessages.theOrganization;
  return (
    <>
      <div className="notice notice--error form-alert" role="alert">
        {until === null
          ? consumerMessages.locked(who)
          : consumerMessages.lockedUntil(lockEndInWords(until), who)}
      </div>
      <OrganizationContact organization={organization} />
    </>
  );
}
