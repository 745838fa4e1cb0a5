import { sessionIdentityOf } from '../../../lib/session/session-identity.ts';
import { isSignedIn, useSession } from '../../../lib/session/use-session.ts';

/** Shown on every customer page while an admin has launched the session (docs/rules.md#launch). */
export function LaunchBanner() {
  const session = useSession('customer');
  if (!isSignedIn(session) || session.record?.accessType !== 'Launched') return null;
  const admin = sessionIdentityOf(session.state.payload).launchedBy ?? 'an administrator';
  return (
    <aside className="launch-banner" aria-label="Launched session">
      <strong>Launched by {admin}.</strong> You are using the customer portal on the customer's behalf; what
      you do here is recorded under your name.
    </aside>
  );
}
