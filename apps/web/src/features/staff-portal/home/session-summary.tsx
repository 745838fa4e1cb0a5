import type { Scope } from '@entry/domain';
import { Fragment } from 'react';
import { useAppConfig } from '../../../config/app-config-context.tsx';
import { staffIdleMs } from '../../../lib/session/idle-timeout.tsx';
import { type SessionIdentity, sessionIdentityOf } from '../../../lib/session/session-identity.ts';
import type { SessionView } from '../../../lib/session/use-session.ts';
import { useSignOut } from '../../../lib/session/use-sign-out.ts';

/** A launched customer session belongs to no customer user: it names the admin who opened it instead. */
function whoIsSignedIn(identity: SessionIdentity): string {
  if (identity.name !== null) return identity.name;
  if (identity.launchedBy !== null) return `${identity.launchedBy}, launched from the admin portal`;
  return identity.subject ?? 'Unknown';
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });

/** Who is signed in, when the session ends, and the way out: the same on every portal home page. */
export function SessionSummary({
  scope,
  session,
  extraFacts = [],
}: {
  scope: Scope;
  session: SessionView;
  extraFacts?: readonly { term: string; value: string }[];
}) {
  const { signOut, signingOut } = useSignOut(scope);
  const idleMinutes = staffIdleMs(useAppConfig()) / 60_000;
  const identity = sessionIdentityOf(session.state.payload);
  const expiresAt = session.record === null ? null : new Date(session.record.expiresAt);
  return (
    <>
      <dl className="session-facts">
        <dt>Signed in as</dt>
        <dd data-testid="signed-in-as">{whoIsSignedIn(identity)}</dd>
        {extraFacts.map((fact) => (
          <Fragment key={fact.term}>
            <dt>{fact.term}</dt>
            <dd>{fact.value}</dd>
          </Fragment>
        ))}
        {expiresAt !== null && (
          <>
            <dt>Session ends</dt>
            <dd>
              <time dateTime={expiresAt.toISOString()} data-testid="session-ends">
                {timeFormat.format(expiresAt)}
              </time>{' '}
              <span className="muted">(sooner after {idleMinutes} minutes without activity)</span>
            </dd>
          </>
        )}
      </dl>
      <button type="button" className="button button--secondary" disabled={signingOut} onClick={signOut}>
        Sign out
      </button>
    </>
  );
}
