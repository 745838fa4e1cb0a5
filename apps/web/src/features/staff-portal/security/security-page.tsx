import type { EnrolmentResult } from '@entry/domain';
import { useRef, useState } from 'react';
import { Link, Navigate } from 'react-router';
import { AuthCard } from '../../../components/auth-layout/auth-layout.tsx';
import { useSession } from '../../../lib/session/use-session.ts';
import { useSignOut } from '../../../lib/session/use-sign-out.ts';
import { FactorsView } from '../common/factors-view.tsx';
import { useFinishSignIn } from '../common/finish-sign-in.ts';
import { secondFactorMessages } from '../common/second-factor-messages.ts';
import {
  type StaffScope,
  staffAccessOf,
  staffPaths,
  staffStartPath,
  useSecondFactors,
} from '../common/staff-scope.ts';
import { useStepUp } from '../common/step-up.tsx';
import { useFactors } from '../common/use-factors.ts';
import { AuthenticatorSection } from './authenticator-section.tsx';
import { PasskeysSection } from './passkeys-section.tsx';
import { RecoveryCodesPanel } from './recovery-codes-panel.tsx';
import { RecoveryCodesSection } from './recovery-codes-section.tsx';
import type { SectionProps } from './section-props.ts';

/** Recovery codes on screen, and where the person goes once they have saved them. */
interface ShownCodes {
  codes: string[];
  /** A first factor set up right after a password sign-in finishes that sign-in. */
  next: 'finish-sign-in' | 'stay';
}

/**
 * `/a/security` and `/d/security`: passkeys, the authenticator app and recovery codes. Right after
 * a password sign-in that must add a first second factor (an enrolment session) it is the set-up of
 * that factor, then its recovery codes, then the portal.
 */
export function SecurityPage({ scope }: { scope: StaffScope }) {
  const session = useSession(scope);
  const access = staffAccessOf(session);
  // A launched customer session is the admin's: its factors are the admin's own, in the admin portal.
  const launched = session.record?.accessType === 'Launched';
  // Judged on arrival: a first factor turns an enrolment session into a full one, and the page goes on.
  const [arrival] = useState({ access, launched });
  const enrolling = arrival.access === 'enrolment';
  const allowed = enrolling || (arrival.access === 'full' && !arrival.launched);
  const secondFactors = useSecondFactors(scope);
  const { state, reload } = useFactors(scope, allowed);
  const { withStepUp, prompt } = useStepUp(scope);
  const [shownCodes, setShownCodes] = useState<ShownCodes | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const finish = useFinishSignIn(scope);
  const { signOut, signingOut } = useSignOut(scope);
  const pageRef = useRef<HTMLDivElement>(null);
  const pages = staffPaths(scope);

  if (!allowed) {
    return <Navigate to={launched ? pages.home.href() : staffStartPath(scope, access)} replace />;
  }

  const announce = (message: string) => {
    setAnnouncement(message);
    reload();
  };
  const onAdded = (result: EnrolmentResult, message: string) => {
    if (result.recoveryCodes !== null) {
      setShownCodes({ codes: result.recoveryCodes, next: enrolling ? 'finish-sign-in' : 'stay' });
    }
    announce(message);
  };
  const onCodesSaved = () => {
    if (shownCodes?.next === 'finish-sign-in') {
      finish();
      return;
    }
    setShownCodes(null);
    // The panel that had the focus is gone: the page takes it back, so the next Tab starts at its top.
    requestAnimationFrame(() => pageRef.current?.focus());
  };

  return (
    <AuthCard title={enrolling ? 'Set up a second factor' : 'Sign-in security'}>
      <div ref={pageRef} tabIndex={-1} className="security-page">
        <p className="visually-hidden" role="status">
          {announcement}
        </p>
        {shownCodes !== null ? (
          <RecoveryCodesPanel
            codes={shownCodes.codes}
            onSaved={onCodesSaved}
            continueLabel={
              shownCodes.next === 'finish-sign-in' ? 'I have saved them, continue' : 'I have saved them'
            }
          />
        ) : (
          <>
            {prompt}
            <div hidden={prompt !== null}>
              <FactorsView state={state} reload={reload}>
                {(factors) => (
                  <Sections
                    enrolling={enrolling}
                    props={{
                      factors,
                      secondFactors,
                      canAdd: factors.policy !== 'off',
                      withStepUp,
                      onAdded,
                      onChanged: announce,
                    }}
                    onCodes={(codes) => setShownCodes({ codes, next: 'stay' })}
                  />
                )}
              </FactorsView>
            </div>
          </>
        )}
        <p className="portal-links">
          {enrolling ? (
            <button type="button" className="link-button" disabled={signingOut} onClick={signOut}>
              Sign out
            </button>
          ) : (
            <>
              <Link to={pages.home.href()}>Back to the portal</Link>
              <Link to={pages.changePassword.href()}>Change your password</Link>
            </>
          )}
        </p>
      </div>
    </AuthCard>
  );
}

/** The page's sections: a first factor's choice while enrolling, every factor and the codes after. */
function Sections({
  enrolling,
  props,
  onCodes,
}: {
  enrolling: boolean;
  props: SectionProps;
  onCodes(codes: string[]): void;
}) {
  const { factors } = props;
  const hasFactor = factors.totp.enrolled || factors.passkeys.length > 0;
  return (
    <>
      {enrolling && !hasFactor && (
        <p>
          Your account needs a second way to confirm it is you, besides your password. Set up an authenticator
          app or a passkey to continue.
        </p>
      )}
      {factors.policy === 'off' && <p className="muted">{secondFactorMessages.notAllowedByPolicy}</p>}
      {factors.policy === 'required' && !enrolling && (
        <p className="muted">
          Your account must keep at least one second factor: a passkey or an authenticator app.
        </p>
      )}
      <AuthenticatorSection {...props} />
      <PasskeysSection {...props} />
      {hasFactor && <RecoveryCodesSection {...props} onCodes={onCodes} />}
    </>
  );
}
