import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AuthCard } from '../../../components/auth-layout/auth-layout.tsx';
import { FormAlert } from '../../../components/form-field.tsx';
import { LoadingState } from '../../../components/loading-state.tsx';
import { paths } from '../../../config/paths.ts';
import { commonRefusalMessage, errorCodeOf } from '../../../lib/session/sign-in-errors.ts';
import { useTokenFromAddress } from '../../../lib/session/use-token-from-address.ts';
import { useCustomerAuth } from '../common/staff-scope.ts';

const launchMessages = {
  usedOrExpired:
    'This launch link has already been used or has expired; it works once, within a minute. Launch the portal again from the admin portal.',
  notValid: 'This launch link is not valid. Launch the portal again from the admin portal.',
  missing: 'This address has no launch token. Launch the portal from the admin portal.',
} as const;

/** `/d/launch?token=`: an admin's single-use launch token becomes a customer session. */
export function LaunchPage() {
  const customerAuth = useCustomerAuth();
  const navigate = useNavigate();
  const token = useTokenFromAddress();
  const [refusal, setRefusal] = useState<string | null>(token === null ? launchMessages.missing : null);
  // The token works once: a second effect run (React's strict mode) must reuse the first call.
  const signIn = useRef<Promise<unknown> | null>(null);

  useEffect(() => {
    if (token === null) return;
    let active = true;
    signIn.current ??= customerAuth.signInWithToken({ token });
    signIn.current
      .then(() => {
        if (active) navigate(paths.customerPortal.home.href(), { replace: true });
      })
      .catch((error: unknown) => {
        if (!active) return;
        const code = errorCodeOf(error);
        setRefusal(
          code === 'InvalidState'
            ? launchMessages.usedOrExpired
            : code === 'ItemNotFound'
              ? launchMessages.notValid
              : commonRefusalMessage(error),
        );
      });
    return () => {
      active = false;
    };
  }, [token, customerAuth, navigate]);

  if (refusal === null) {
    return (
      <AuthCard title="Opening the customer portal">
        <LoadingState label="Signing you in, one moment…" />
      </AuthCard>
    );
  }
  return (
    <AuthCard title="The portal could not be opened">
      <FormAlert>{refusal}</FormAlert>
      <p className="portal-links">
        <Link to={paths.adminPortal.home.href()}>Go to the admin portal</Link>
        <Link to={paths.customerPortal.signIn.href()}>Sign in to the customer portal</Link>
      </p>
    </AuthCard>
  );
}
