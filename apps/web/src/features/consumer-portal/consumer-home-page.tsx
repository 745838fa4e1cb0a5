import { ProtectedConsumerPage } from './consumer-page.tsx';

/** `/c/`: the portal's start page (also the "welcome" target). */
export function ConsumerHomePage() {
  return (
    <ProtectedConsumerPage title="Welcome">
      <p>Welcome to your account.</p>
    </ProtectedConsumerPage>
  );
}
