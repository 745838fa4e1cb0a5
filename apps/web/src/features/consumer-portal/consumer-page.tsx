import { isUnreachable } from '@entry/client';
import type { IdentityTokenData } from '@entry/domain';
import { Fragment, type ReactNode, useCallback, useEffect, useState } from 'react';
import { Navigate } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { layoutTexts } from '../../components/auth-layout/layout-texts.ts';
import { LoadingState } from '../../components/loading-state.tsx';
import { UnreachableNotice } from '../../components/unreachable-notice.tsx';
import { paths } from '../../config/paths.ts';
import { clockTimeFormat, moneyFormat } from '../../i18n/formats.ts';
import { useTexts } from '../../i18n/language.ts';
import { inNextTask } from '../../lib/in-next-task.ts';
import { consumerStartPath } from '../../lib/pending-verification.ts';
import { consumerIdleTimeout, IdleTimeout } from '../../lib/session/idle-timeout.tsx';
import { usePortalApi, usePortalServices } from '../../lib/session/portal-api.ts';
import { sessionIdentityOf } from '../../lib/session/session-identity.ts';
import { sessionMessages } from '../../lib/session/session-messages.ts';
import { isSignedIn, type SessionView, useSession } from '../../lib/session/use-session.ts';
import { useSignOut } from '../../lib/session/use-sign-out.ts';
import { consumerMessages } from './consumer-messages.ts';
import { useSessionGuidFromAddress } from './use-consumer-session.ts';

type LinkDataState =
  | { kind: 'loading' }
  | { kind: 'loaded'; data: IdentityTokenData }
  /** The link carries no payment data, or the session came without a link. */
  | { kind: 'none' }
  | { kind: 'unreachable' }
  | { kind: 'failed' };

/**
 * The payment data of the link the consumer came with; only their own session may read it. It is
 * read after the page is in the document: the page (its heading, who is signed in) is reached with
 * the link's own calls alone (docs/rules.md#budgets), and the data follows. `reload` reads it again.
 */
function useLinkData(identityToken: string | null): { state: LinkDataState; reload: () => void } {
  const identityTokens = usePortalApi('consumer').identityTokens;
  const [state, setState] = useState<LinkDataState>(
    identityToken === null ? { kind: 'none' } : { kind: 'loading' },
  );
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((count) => count + 1), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is the request to read the data again.
  useEffect(() => {
    if (identityToken === null) return;
    let active = true;
    setState({ kind: 'loading' });
    const cancel = inNextTask(() => {
      identityTokens
        .get(identityToken, { explainedByPage: true })
        .then((token) => {
          if (active) setState(token.data ? { kind: 'loaded', data: token.data } : { kind: 'none' });
        })
        .catch((error: unknown) => {
          if (active) setState({ kind: isUnreachable(error) ? 'unreachable' : 'failed' });
        });
    });
    return () => {
      active = false;
      cancel();
    };
  }, [identityTokens, identityToken, attempt]);
  return { state, reload };
}

function LinkData({ data }: { data: IdentityTokenData }) {
  const texts = useTexts('consumer', consumerMessages).portal;
  const money = moneyFormat(useTexts('layout', layoutTexts).locale);
  const rows = [
    [texts.amountDue, data.paymentAmount === null ? null : money.format(data.paymentAmount)],
    [
      texts.scheduledPayment,
      data.schedulePaymentAmount === null ? null : money.format(data.schedulePaymentAmount),
    ],
    [texts.downPayment, data.scheduleDownPayment === null ? null : money.format(data.scheduleDownPayment)],
    [texts.schedule, data.scheduleInterval],
  ].filter((row): row is [string, string] => row[1] !== null);
  if (rows.length === 0) return null;
  return (
    <section className="link-data" aria-labelledby="link-data-title">
      <h2 id="link-data-title" className="section-title">
        {texts.yourAccount}
      </h2>
      <dl className="session-facts" data-testid="link-data">
        {rows.map(([term, value]) => (
          <Fragment key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}

function ConsumerSession({ session }: { session: SessionView }) {
  const identity = sessionIdentityOf(session.state.payload);
  const { state: linkData, reload } = useLinkData(identity.identityToken);
  const { signOut, signingOut } = useSignOut('consumer');
  const expiresAt = session.record === null ? null : new Date(session.record.expiresAt);
  const texts = useTexts('consumer', consumerMessages).portal;
  const sessionTexts = useTexts('session', sessionMessages);
  const timeFormat = clockTimeFormat(useTexts('layout', layoutTexts).locale);
  return (
    <>
      {linkData.kind === 'loading' && <LoadingState label={texts.loadingAccount} />}
      {linkData.kind === 'loaded' && <LinkData data={linkData.data} />}
      {linkData.kind === 'unreachable' && (
        <UnreachableNotice onRetry={reload}>
          <p>{texts.accountUnreachable}</p>
        </UnreachableNotice>
      )}
      {linkData.kind === 'failed' && <p className="notice">{texts.accountFailed}</p>}
      <dl className="session-facts">
        <dt>{texts.signedInAs}</dt>
        <dd data-testid="signed-in-as">{identity.name ?? texts.you}</dd>
        {expiresAt !== null && (
          <>
            <dt>{texts.sessionEnds}</dt>
            <dd>
              <time dateTime={expiresAt.toISOString()} data-testid="session-ends">
                {timeFormat.format(expiresAt)}
              </time>{' '}
              <span className="muted">{texts.soonerAfter(consumerIdleTimeout.idleMs / 60_000)}</span>
            </dd>
          </>
        )}
      </dl>
      <button type="button" className="button button--secondary" disabled={signingOut} onClick={signOut}>
        {sessionTexts.signOut}
      </button>
      <IdleTimeout scope="consumer" />
    </>
  );
}

/**
 * A page of the consumer portal that needs a session: it shows who is signed in, the link's
 * payment data (once read) and the session; without a session the person is sent to verify who
 * they are (docs/rules.md#web), with the question of their link where the tab remembers one.
 */
export function ProtectedConsumerPage({ title, children }: { title: string; children: ReactNode }) {
  useSessionGuidFromAddress();
  const session = useSession('consumer');
  const { storage } = usePortalServices();
  if (!isSignedIn(session)) {
    // Verified but the code step is still open: finish that rather than start over.
    const pendingCode = session.state.restricted && !session.state.expired;
    const start = pendingCode ? paths.consumerPortal.mfa.href() : consumerStartPath(storage);
    return <Navigate to={start} replace />;
  }
  return (
    <AuthCard title={title}>
      {children}
      <ConsumerSession session={session} />
    </AuthCard>
  );
}
