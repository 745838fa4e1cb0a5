import { useTexts } from '../../i18n/language.ts';
import { consumerMessages } from './consumer-messages.ts';
import { ProtectedConsumerPage } from './consumer-page.tsx';

/** `/c/`: the portal's start page (also the "welcome" target). */
export function ConsumerHomePage() {
  const texts = useTexts('consumer', consumerMessages).portal;
  return (
    <ProtectedConsumerPage title={texts.welcomeTitle}>
      <p>{texts.welcome}</p>
    </ProtectedConsumerPage>
  );
}
