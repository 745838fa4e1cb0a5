import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { AuthCard } from '../../../components/auth-layout/auth-layout.tsx';
import { FormAlert, FormField } from '../../../components/form-field.tsx';
import { useCheckedForm } from '../../../lib/forms/use-checked-form.ts';
import { notify } from '../../../lib/notifications.ts';
import { usePortalApi } from '../../../lib/session/portal-api.ts';
import {
  commonRefusalMessage,
  errorCodeOf,
  lockedMessage,
  signInMessages,
} from '../../../lib/session/sign-in-errors.ts';
import { useSession } from '../../../lib/session/use-session.ts';
import {
  changePasswordStateOf,
  type StaffScope,
  staffAccessOf,
  staffPaths,
  useStaffAuth,
} from '../common/staff-scope.ts';
import { useStepUp } from '../common/step-up.tsx';
import { NewPasswordFields, newPasswordChecks, WeakPasswordAlert } from './new-password-fields.tsx';

const changeMessages = {
  changed: 'Your password has been changed. Sign in with your new password.',
  wrongCurrent: 'The username or current password is not correct.',
  enterUsername: 'Enter your username.',
  enterCurrent: 'Enter your current password.',
  secondFactorFirst:
    'If your account has a second factor, sign in first: this page then asks you to confirm it before the password changes.',
} as const;

const changeChecks = {
  username: (value: string) => (value.trim() === '' ? changeMessages.enterUsername : null),
  currentPassword: (value: string) => (value === '' ? changeMessages.enterCurrent : null),
  ...newPasswordChecks<'username' | 'currentPassword'>(),
};

/**
 * `/a/change-password` and `/d/change-password`: the current password and a new one. Also where an
 * expired password leads. A new password ends every session of the account, so this tab's goes too.
 * For a user with a second factor the server wants one used recently in this browser's session: the
 * step-up asks for it in place of the form.
 */
export function ChangePasswordPage({ scope }: { scope: StaffScope }) {
  const auth = useStaffAuth(scope);
  const tokens = usePortalApi(scope).tokens;
  const navigate = useNavigate();
  const arrival = changePasswordStateOf(useLocation().state);
  // A user with a second factor whose password expired arrives here with a session good for this alone.
  const access = staffAccessOf(useSession(scope));
  const passwordExpired = arrival.passwordExpired === true || access === 'password-expired';
  const { withStepUp, prompt } = useStepUp(scope);
  const [weak, setWeak] = useState(false);
  // Not a sign-in form: a field shows its error once left, or after submission (docs/rules.md#forms).
  const form = useCheckedForm(changeChecks, 'after-leaving');

  const onSubmit = form.onSubmitWith(async ({ username, currentPassword, newPassword }) => {
    setWeak(false);
    try {
      const outcome = await withStepUp(() =>
        auth.changePassword({ username: username.trim(), currentPassword, newPassword }),
      );
      if (!outcome.done) return;
    } catch (error) {
      const code = errorCodeOf(error);
      if (code === 'WeakPassword') setWeak(true);
      else if (code === 'InvalidSignIn' || code === 'ItemNotFound')
        form.setRefusal(changeMessages.wrongCurrent);
      else if (code === 'UserLocked') form.setRefusal(lockedMessage(error));
      else form.setRefusal(commonRefusalMessage(error));
      return;
    }
    tokens.clearSession();
    notify(changeMessages.changed);
    navigate(staffPaths(scope).signIn.href(), { replace: true });
  });

  return (
    <AuthCard title="Change your password">
      {prompt}
      <form
        noValidate
        onSubmit={onSubmit}
        onChange={form.onChange}
        onBlur={form.onBlur}
        hidden={prompt !== null}
      >
        <p className="muted">{changeMessages.secondFactorFirst}</p>
        {passwordExpired && !weak && form.refusal === null && (
          <FormAlert>{signInMessages.passwordExpired}</FormAlert>
        )}
        {weak && (
          <FormAlert>
            <WeakPasswordAlert />
          </FormAlert>
        )}
        {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
        <FormField
          label="Username"
          type="text"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          name="username"
          defaultValue={arrival.username ?? ''}
          error={form.errors.username}
        />
        <FormField
          label="Current password"
          type="password"
          autoComplete="current-password"
          name="currentPassword"
          error={form.errors.currentPassword}
        />
        <NewPasswordFields errors={form.errors} />
        <button
          className="button button--block"
          type="submit"
          disabled={form.submitting}
          aria-busy={form.submitting}
        >
          Change the password
        </button>
      </form>
      <p className="portal-links">
        <Link to={staffPaths(scope).signIn.href()}>Back to sign-in</Link>
        <Link to={staffPaths(scope).resetPassword.href()}>Forgot your password?</Link>
      </p>
    </AuthCard>
  );
}
