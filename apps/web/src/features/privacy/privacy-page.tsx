import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { OrganizationContact } from '../../components/organization/organization-contact.tsx';
import { useTexts } from '../../i18n/language.ts';
import { useOrganization } from '../../lib/organization.ts';
import { privacyTexts } from './privacy-texts.ts';

/** `/privacy`: what this sign-in service keeps of the people who use it, in plain words. */
export function PrivacyPage() {
  const organization = useOrganization();
  const texts = useTexts('privacy', privacyTexts);
  const who = organization?.name ?? texts.theOrganization;
  return (
    <AuthCard title={texts.title}>
      <p>{texts.intro(who)}</p>
      <h2 className="section-title">{texts.typedTitle}</h2>
      <p>{texts.typed(who)}</p>
      <h2 className="section-title">{texts.browserTitle}</h2>
      <p>{texts.browser}</p>
      <h2 className="section-title">{texts.recordsTitle}</h2>
      <p>{texts.records}</p>
      <h2 className="section-title">{texts.questionsTitle}</h2>
      <p>{texts.questions(who)}</p>
      <OrganizationContact organization={organization} headingLevel={3} />
    </AuthCard>
  );
}
