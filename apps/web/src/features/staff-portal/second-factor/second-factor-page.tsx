import { useState } from 'react';
import { Navigate } from 'react-router';
import { AuthCard } from '../../../components/auth-layout/auth-layout.tsx';
import { useSession } from '../../../lib/session/use-session.ts';
import { useSignOut } from '../../../lib/session/use-sign-out.ts';
import { FactorsView } from '../common/factors-view.tsx';
import { useFinishSignIn } from '../common/finish-sign-in.ts';
import { SecondStepForm } from '../common/second-step-form.tsx';
import { type StaffScope, staffAccessOf, staffStartPath } from '../common/staff-scope.ts';
import { useFactors } from '../common/use-factors.ts';

/**
 * `/a/second-factor` and `/d/second-factor`: after a password, the user confirms it is them with a
 * passkey, an authenticator code or a recovery code. Only a session waiting for this step sees it.
 */
export function SecondFactorPage({ scope }: { scope: StaffScope }) {
  const access = staffAccessOf(useSession(scope));
  // Judged on arrival: the step's own success upgrades the session, and then finishes the sign-in itself.
  const [pending] = useState(access === 'pending');
  const { state, reload } = useFactors(scope, pending);
  const finish = useFinishSignIn(scope);
  const { signOut, signingOut } = useSignOut(scope);

  if (!pending) return <Navigate to={staffStartPath(scope, access)} replace />;

  return (
    <AuthCard title="Confirm it is you">
      <FactorsView state={state} reload={reload}>
        {(factors) => (
          <>
            <p>Your password was correct. To finish signing in, use your second factor.</p>
            <SecondStepForm scope={scope} factors={factors} onConfirmed={finish} />
          </>
        )}
      </FactorsView>
      <p className="portal-links">
        <button type="button" className="link-button" disabled={signingOut} onClick={signOut}>
          Cancel and sign in as someone else
        </button>
      </p>
      <p className="muted">
        Lost your passkeys, your authenticator app and your recovery codes? An administrator can reset your
        second factors so you can set up new ones.
      </p>
    </AuthCard>
  );
}
