import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AuthCard } from '../../../components/auth-layout/auth-layout.tsx';
import { FormAlert, FormField } from '../../../components/form-field.tsx';
import { useCheckedForm } from '../../../lib/forms/use-checked-form.ts';
import {
  commonRefusalMessage,
  errorCodeOf,
  lockedMessage,
  signInMessages,
} from '../../../lib/session/sign-in-errors.ts';
import { useFinishSignIn } from '../common/finish-sign-in.ts';
import { browserHasPasskeys } from '../common/passkey-ceremony.ts';
import { signInWithPasskey } from '../common/passkey-sign-in.ts';
import { secondFactorRefusal } from '../common/second-factor-errors.ts';
import {
  type ChangePasswordState,
  type StaffScope,
  staffPaths,
  staffPortalNames,
  useSecondFactors,
  useStaffAuth,
} from '../common/staff-scope.ts';

const required = { username: 'Enter your username.', password: 'Enter your password.' } as const;

const signInChecks = {
  username: (value: string) => (value.trim() === '' ? required.username : null),
  password: (value: string) => (value === '' ? required.password : null),
};

/**
 * `/a/sign-in` and `/d/sign-in`: username and password, then a second factor where the account has
 * or needs one; or a passkey alone. Errors show once the form is submitted.
 */
export function SignInPage({ scope }: { scope: StaffScope }) {
  const auth = useStaffAuth(scope);
  const secondFactors = useSecondFactors(scope);
  const navigate = useNavigate();
  const finish = useFinishSignIn(scope);
  const portalPaths = staffPaths(scope);
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const form = useCheckedForm(signInChecks);
  const { setRefusal } = form;

  const onSubmit = form.onSubmitWith(async (values) => {
    let accessType: string;
    try {
      ({ accessType } = await auth.signIn({ username: values.username.trim(), password: values.password }));
    } catch (error) {
      const code = errorCodeOf(error);
      if (code === 'PasswordExpired') {
        const state: ChangePasswordState = { username: values.username.trim(), passwordExpired: true };
        navigate(portalPaths.changePassword.href(), { state });
        return;
      }
      setRefusal(
        code === 'InvalidSignIn'
          ? signInMessages.wrongPassword
          : code === 'UserLocked'
            ? lockedMessage(error)
            : commonRefusalMessage(error),
      );
      return;
    }
    // A second factor still to pass, or to set up first; the saved page waits until the end.
    if (accessType === 'SecondFactorPending') navigate(portalPaths.secondFactor.href(), { replace: true });
    else if (accessType === 'SecondFactorEnrolment') navigate(portalPaths.security.href(), { replace: true });
    else finish();
  });

  /** A passkey alone, with no username (a discoverable credential): it names its user itself. */
  async function signInWithPasskeyAlone() {
    setRefusal(null);
    setPasskeyBusy(true);
    try {
      await signInWithPasskey(secondFactors, true);
    } catch (error) {
      setPasskeyBusy(false);
      setRefusal(secondFactorRefusal(error, 'passkey'));
      return;
    }
    finish();
  }

  return (
    <AuthCard title={`Sign in to the ${staffPortalNames[scope].toLowerCase()}`}>
      <form noValidate onSubmit={onSubmit} onChange={form.onChange}>
        {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
        <FormField
          label="Username"
          type="text"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          name="username"
          error={form.errors.username}
        />
        <FormField
          label="Password"
          type="password"
          autoComplete="current-password"
          name="password"
          error={form.errors.password}
        />
        <button
          className="button button--block"
          type="submit"
          disabled={form.submitting}
          aria-busy={form.submitting}
        >
          Sign in
        </button>
      </form>
      {browserHasPasskeys() && (
        <div className="portal-actions">
          <button
            type="button"
            className="button button--secondary button--block"
            disabled={passkeyBusy || form.submitting}
            aria-busy={passkeyBusy}
            onClick={signInWithPasskeyAlone}
          >
            Sign in with a passkey
          </button>
        </div>
      )}
      <p className="portal-links">
        <Link to={portalPaths.resetPassword.href()}>Forgot your password?</Link>
        <Link to={portalPaths.changePassword.href()}>Change your password</Link>
      </p>
    </AuthCard>
  );
}
