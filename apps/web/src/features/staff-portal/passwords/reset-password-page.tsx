import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { AuthCard } from '../../../components/auth-layout/auth-layout.tsx';
import { FormAlert, FormField } from '../../../components/form-field.tsx';
import { LoadingState } from '../../../components/loading-state.tsx';
import { useCheckedForm } from '../../../lib/forms/use-checked-form.ts';
import { usePortalServices } from '../../../lib/session/portal-api.ts';
import { commonRefusalMessage, errorCodeOf } from '../../../lib/session/sign-in-errors.ts';
import { useTokenFromAddress } from '../../../lib/session/use-token-from-address.ts';
import { type StaffScope, staffPaths, useStaffAuth } from '../common/staff-scope.ts';
import { NewPasswordFields, newPasswordChecks, WeakPasswordAlert } from './new-password-fields.tsx';

const resetMessages = {
  linkSent:
    'If an account has this username, we have sent a link to its e-mail address. The link works once, for 30 minutes.',
  passwordChanged: 'Your password has been changed. You can now sign in with it.',
  linkUsedOrExpired: 'This link has already been used or has expired. Ask for a new one below.',
  linkNotValid:
    'This link is not valid. Check that you opened the whole link from the mail, or ask for a new one.',
  enterUsername: 'Enter your username.',
} as const;

/** Where the tab keeps a reset link's token once it has left the address, so a reload keeps working. */
function resetTokenKey(scope: StaffScope): string {
  return `${scope}-reset-token`;
}

/** The message for a refused reset link, or null when the refusal says nothing about the link. */
function linkRefusalOf(error: unknown): string | null {
  const code = errorCodeOf(error);
  if (code === 'InvalidState') return resetMessages.linkUsedOrExpired;
  if (code === 'ItemNotFound') return resetMessages.linkNotValid;
  return null;
}

/**
 * Asks the server whether the reset link still works, once per token: 'usable' also when the
 * check could not say (the server unreachable, too many attempts), since Save reports those.
 */
function useResetLinkCheck(scope: StaffScope, resetToken: string | null) {
  const auth = useStaffAuth(scope);
  const [checked, setChecked] = useState<{ token: string; refusal: string | null } | null>(null);
  useEffect(() => {
    if (resetToken === null) return;
    let active = true;
    auth
      .checkResetToken({ resetToken })
      .then(() => null)
      .catch(linkRefusalOf)
      .then((refusal) => {
        if (active) setChecked({ token: resetToken, refusal });
      });
    return () => {
      active = false;
    };
  }, [auth, resetToken]);
  if (resetToken === null) return { kind: 'none' } as const;
  if (checked?.token !== resetToken) return { kind: 'checking' } as const;
  return checked.refusal === null
    ? ({ kind: 'usable' } as const)
    : ({ kind: 'refused', message: checked.refusal } as const);
}

/**
 * `/a/reset-password` and `/d/reset-password`: without a token, ask for a link by mail; with the
 * mailed `?token=`, choose a new password. The token leaves the address as soon as it is read and
 * stays in the tab's session storage until it is spent or refused. The link is checked as the page
 * opens, so a used or expired one is said at once, before a password is typed for nothing.
 */
export function ResetPasswordPage({ scope }: { scope: StaffScope }) {
  const { storage } = usePortalServices();
  const resetToken = useTokenFromAddress(resetTokenKey(scope));
  const link = useResetLinkCheck(scope, resetToken);
  const [linkRefused, setLinkRefused] = useState<string | null>(null);
  const forgetToken = () => storage.removeItem(resetTokenKey(scope));

  useEffect(() => {
    if (link.kind === 'refused') storage.removeItem(resetTokenKey(scope));
  }, [link.kind, storage, scope]);

  if (link.kind === 'checking') {
    return (
      <AuthCard title="Choose a new password">
        <LoadingState label="Checking your link, one moment…" />
      </AuthCard>
    );
  }
  if (resetToken !== null && link.kind === 'usable' && linkRefused === null) {
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
  return <RequestLinkForm scope={scope} notice={link.kind === 'refused' ? link.message : linkRefused} />;
}

function RequestLinkForm({ scope, notice }: { scope: StaffScope; notice: string | null }) {
  const auth = useStaffAuth(scope);
  const [sent, setSent] = useState(false);
  const form = useCheckedForm(
    { username: (value) => (value.trim() === '' ? resetMessages.enterUsername : null) },
    'after-leaving',
  );

  const onSubmit = form.onSubmitWith(async ({ username }) => {
    await auth.resetPassword({ username: username.trim() });
    setSent(true);
  }, commonRefusalMessage);

  return (
    <AuthCard title="Reset your password">
      {sent ? (
        <p className="notice" role="status">
          {resetMessages.linkSent}
        </p>
      ) : (
        <form noValidate onSubmit={onSubmit} onChange={form.onChange} onBlur={form.onBlur}>
          {notice !== null && <FormAlert>{notice}</FormAlert>}
          {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
          <p>
            Enter your username. We will mail a link to choose a new password to the address on your account.
          </p>
          <FormField
            label="Username"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            name="username"
            error={form.errors.username}
          />
          <button
            className="button button--block"
            type="submit"
            disabled={form.submitting}
            aria-busy={form.submitting}
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
  const form = useCheckedForm(newPasswordChecks(), 'after-leaving');

  const onSubmit = form.onSubmitWith(async ({ newPassword }) => {
    setWeak(false);
    try {
      await auth.changePassword({ resetToken, newPassword });
      onDone();
      setDone(true);
    } catch (error) {
      const linkRefusal = linkRefusalOf(error);
      if (errorCodeOf(error) === 'WeakPassword') setWeak(true);
      else if (linkRefusal !== null) onLinkRefused(linkRefusal);
      else form.setRefusal(commonRefusalMessage(error));
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
      <form noValidate onSubmit={onSubmit} onChange={form.onChange} onBlur={form.onBlur}>
        {weak && (
          <FormAlert>
            <WeakPasswordAlert />
          </FormAlert>
        )}
        {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
        <NewPasswordFields errors={form.errors} />
        <button
          className="button button--block"
          type="submit"
          disabled={form.submitting}
          aria-busy={form.submitting}
        >
          Save the new password
        </button>
      </form>
    </AuthCard>
  );
}
