import { storageKeys } from '@entry/domain';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { FormAlert, FormField } from '../../components/form-field.tsx';
import { usePortalServices } from '../../lib/session/portal-api.ts';
import {
  commonRefusalMessage,
  errorCodeOf,
  lockedMessage,
  signInMessages,
} from '../../lib/session/sign-in-errors.ts';
import {
  type ChangePasswordState,
  type StaffScope,
  staffPaths,
  staffPortalNames,
  useStaffAuth,
} from './staff-scope.ts';

interface SignInValues {
  username: string;
  password: string;
}

const required = { username: 'Enter your username.', password: 'Enter your password.' } as const;

/** Where a sign-in returns: the page an ended session interrupted, if it belongs to this portal. */
function returnPath(saved: string | null, scope: StaffScope): string {
  const base = staffPaths(scope).href();
  if (saved?.startsWith(`${base}/`) && !saved.startsWith(staffPaths(scope).signIn.href())) return saved;
  return staffPaths(scope).home.href();
}

/** `/a/sign-in` and `/d/sign-in`: username and password. Errors show once the form is submitted. */
export function SignInPage({ scope }: { scope: StaffScope }) {
  const auth = useStaffAuth(scope);
  const { storage } = usePortalServices();
  const navigate = useNavigate();
  const portalPaths = staffPaths(scope);
  const [refusal, setRefusal] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitted, isSubmitting },
  } = useForm<SignInValues>({ defaultValues: { username: '', password: '' } });
  const shown = (field: keyof SignInValues) => (isSubmitted ? errors[field]?.message : undefined);

  const onSubmit = handleSubmit(async (values) => {
    setRefusal(null);
    try {
      await auth.signIn({ username: values.username.trim(), password: values.password });
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
    const saved = storage.getItem(storageKeys.redirect);
    storage.removeItem(storageKeys.redirect);
    navigate(returnPath(saved, scope), { replace: true });
  });

  return (
    <AuthCard title={`Sign in to the ${staffPortalNames[scope].toLowerCase()}`}>
      <form noValidate onSubmit={onSubmit}>
        {refusal !== null && <FormAlert>{refusal}</FormAlert>}
        <FormField
          label="Username"
          type="text"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          registration={register('username', {
            required: required.username,
            validate: (v) => v.trim() !== '' || required.username,
          })}
          error={shown('username')}
        />
        <FormField
          label="Password"
          type="password"
          autoComplete="current-password"
          registration={register('password', { required: required.password })}
          error={shown('password')}
        />
        <button
          className="button button--block"
          type="submit"
          disabled={isSubmitting}
          aria-busy={isSubmitting}
        >
          Sign in
        </button>
      </form>
      <p className="portal-links">
        <Link to={portalPaths.resetPassword.href()}>Forgot your password?</Link>
        <Link to={portalPaths.changePassword.href()}>Change your password</Link>
      </p>
    </AuthCard>
  );
}
