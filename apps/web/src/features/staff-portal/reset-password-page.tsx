import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { FormAlert, FormField } from '../../components/form-field.tsx';
import { usePortalServices } from '../../lib/session/portal-api.ts';
import { commonRefusalMessage, errorCodeOf } from '../../lib/session/sign-in-errors.ts';
import { useTokenFromAddress } from '../../lib/session/use-token-from-address.ts';
import { NewPasswordFields, type NewPasswordValues, WeakPasswordAlert } from './new-password-fields.tsx';
import { type StaffScope, staffPaths, useStaffAuth } from './staff-scope.ts';

export const resetMessages = {
  linkSent:
    'If an account has this username, we have sent a link to its e-mail address. The link works once, for 30 minutes.',
  passwordChanged: 'Your password has been changed. You can now sign in with it.',
  linkUsedOrExpired: 'This link has already been used or has expired. Ask for a new one below.',
  linkNotValid:
    'This link is not valid. Check that you opened the whole link from the mail, or ask for a new one.',
  enterUsername: 'Enter your username.',
} as const;

/** Where the tab keeps a reset link's token once it has left the address, so a reload keeps working. */
export function resetTokenKey(scope: StaffScope): string {
  return `${scope}-reset-token`;
}

/**
 * `/a/reset-password` and `/d/reset-password`: without a token, ask for a link by mail; with the
 * mailed `?token=`, choose a new password. The token leaves the address as soon as it is read and
 * stays in the tab's session storage until it is spent or refused. The spec's calls cannot check a
 * token without choosing the password, so a used or expired link is reported at Save.
 */
export function ResetPasswordPage({ scope }: { scope: StaffScope }) {
  const { storage } = usePortalServices();
  const resetToken = useTokenFromAddress(resetTokenKey(scope));
  const [linkRefused, setLinkRefused] = useState<string | null>(null);
  const forgetToken = () => storage.removeItem(resetTokenKey(scope));

  if (resetToken !== null && linkRefused === null) {
    return (
      <NewPasswordForm
        scope={scope}
        resetToken={resetToken}
        onDone={forgetToken}
        onLinkRefused={(message) => {
          forgetToken();
          setLinkRefused(message);
        }}
      />
    );
  }
  return <RequestLinkForm scope={scope} notice={linkRefused} />;
}

function RequestLinkForm({ scope, notice }: { scope: StaffScope; notice: string | null }) {
  const auth = useStaffAuth(scope);
  const [sent, setSent] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors, touchedFields, isSubmitted, isSubmitting },
  } = useForm<{ username: string }>({ mode: 'onTouched', defaultValues: { username: '' } });

  const onSubmit = handleSubmit(async ({ username }) => {
    setRefusal(null);
    try {
      await auth.resetPassword({ username: username.trim() });
      setSent(true);
    } catch (error) {
      setRefusal(commonRefusalMessage(error));
    }
  });

  return (
    <AuthCard title="Reset your password">
      {sent ? (
        <p className="notice" role="status">
          {resetMessages.linkSent}
        </p>
      ) : (
        <form noValidate onSubmit={onSubmit}>
          {notice !== null && <FormAlert>{notice}</FormAlert>}
          {refusal !== null && <FormAlert>{refusal}</FormAlert>}
          <p>
            Enter your username. We will mail a link to choose a new password to the address on your account.
          </p>
          <FormField
            label="Username"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            registration={register('username', {
              validate: (value) => value.trim() !== '' || resetMessages.enterUsername,
            })}
            error={isSubmitted || touchedFields.username === true ? errors.username?.message : undefined}
          />
          <button
            className="button button--block"
            type="submit"
            disabled={isSubmitting}
            aria-busy={isSubmitting}
          >
            Send the link
          </button>
        </form>
      )}
      <p className="portal-links">
        <Link to={staffPaths(scope).signIn.href()}>Back to sign-in</Link>
      </p>
    </AuthCard>
  );
}

function NewPasswordForm({
  scope,
  resetToken,
  onDone,
  onLinkRefused,
}: {
  scope: StaffScope;
  resetToken: string;
  onDone: () => void;
  onLinkRefused: (message: string) => void;
}) {
  const auth = useStaffAuth(scope);
  const [done, setDone] = useState(false);
  const [weak, setWeak] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors, touchedFields, isSubmitted, isSubmitting },
  } = useForm<NewPasswordValues>({
    mode: 'onTouched',
    defaultValues: { newPassword: '', confirmPassword: '' },
  });
  const shown = (name: keyof NewPasswordValues) =>
    isSubmitted || touchedFields[name] === true ? errors[name]?.message : undefined;

  const onSubmit = handleSubmit(async ({ newPassword }) => {
    setWeak(false);
    setRefusal(null);
    try {
      await auth.changePassword({ resetToken, newPassword });
      onDone();
      setDone(true);
    } catch (error) {
      const code = errorCodeOf(error);
      if (code === 'WeakPassword') setWeak(true);
      else if (code === 'InvalidState') onLinkRefused(resetMessages.linkUsedOrExpired);
      else if (code === 'ItemNotFound') onLinkRefused(resetMessages.linkNotValid);
      else setRefusal(commonRefusalMessage(error));
    }
  });

  if (done) {
    return (
      <AuthCard title="Password changed">
        <p className="notice" role="status">
          {resetMessages.passwordChanged}
        </p>
        <Link className="button button--block" to={staffPaths(scope).signIn.href()}>
          Sign in
        </Link>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Choose a new password">
      <form noValidate onSubmit={onSubmit}>
        {weak && (
          <FormAlert>
            <WeakPasswordAlert />
          </FormAlert>
        )}
        {refusal !== null && <FormAlert>{refusal}</FormAlert>}
        <NewPasswordFields register={register} shownError={shown} />
        <button
          className="button button--block"
          type="submit"
          disabled={isSubmitting}
          aria-busy={isSubmitting}
        >
          Save the new password
        </button>
      </form>
    </AuthCard>
  );
}
