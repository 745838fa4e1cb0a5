import { type EmailSubscriptionResult, isApiError } from '@entry/client';
import { type EmailStatusText, pageTexts } from '@entry/domain';
import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { LoadingState } from '../../components/loading-state.tsx';
import { consumerApi } from '../../lib/api-client.ts';
import { useOrganizationLookup } from '../../lib/organization.ts';

const texts = pageTexts.emailPreferences;

type Problem = 'missingToken' | 'unknownToken' | 'loadFailed';

type PageState =
  | { kind: 'loading' }
  | { kind: 'problem'; problem: Problem }
  | { kind: 'loaded'; subscription: EmailSubscriptionResult; busy: boolean; updateFailed: boolean };

/**
 * Which mails the setting covers, in our own words: unsubscribing stops the organization's mail
 * about the account, never a mail the person asked for (docs/decisions/004).
 */
const coverageText =
  'This setting covers the emails the organization sends you about your account. Emails you ask for yourself, such as a sign-in code or a password reset link, are always sent.';

/** Our own texts for what the specification leaves open: a page opened without a usable link. */
const problemTexts: Record<Problem, string> = {
  missingToken:
    'This page needs the link from one of our e-mails. Open the unsubscribe link in the e-mail you received.',
  unknownToken:
    'We could not find the e-mail preferences for this link. Check that you opened the whole link from the e-mail, or open it again.',
  loadFailed: 'Your e-mail preferences could not be loaded right now. Please try again in a few minutes.',
};

function problemOf(error: unknown): Problem {
  return isApiError(error) && (error.status === 404 || error.status === 401 || error.kind === 'parameter')
    ? 'unknownToken'
    : 'loadFailed';
}

function StatusSentence({ text, email }: { text: EmailStatusText; email: string }) {
  return (
    <p className="subscription-status">
      {text.beforeEmail}
      <strong>{email}</strong>
      {text.afterEmail}
    </p>
  );
}

/**
 * `/unsubscribe?token=`: opening the link from an e-mail unsubscribes the address at once; the
 * page then shows the state the server holds and lets the person switch it back and forth.
 */
export function EmailPreferencesPage() {
  useOrganizationLookup(consumerApi().access);
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const [state, setState] = useState<PageState>(
    token === '' ? { kind: 'problem', problem: 'missingToken' } : { kind: 'loading' },
  );

  const unsubscribeOnOpen = useCallback(async () => {
    const api = consumerApi().emailSubscriptions;
    const record = await api.byToken(token, { explainedByPage: true });
    return api.update(
      { token, emailAddress: record.emailAddress, unsubscribed: true },
      { explainedByPage: true },
    );
  }, [token]);

  useEffect(() => {
    if (token === '') return;
    let active = true;
    setState({ kind: 'loading' });
    unsubscribeOnOpen().then(
      (subscription) => {
        if (active) setState({ kind: 'loaded', subscription, busy: false, updateFailed: false });
      },
      (error: unknown) => {
        if (active) setState({ kind: 'problem', problem: problemOf(error) });
      },
    );
    return () => {
      active = false;
    };
  }, [token, unsubscribeOnOpen]);

  async function change(unsubscribed: boolean) {
    if (state.kind !== 'loaded' || state.busy) return;
    const { subscription } = state;
    setState({ kind: 'loaded', subscription, busy: true, updateFailed: false });
    try {
      const updated = await consumerApi().emailSubscriptions.update(
        { token, emailAddress: subscription.emailAddress, unsubscribed },
        { explainedByPage: true },
      );
      setState({ kind: 'loaded', subscription: updated, busy: false, updateFailed: false });
    } catch {
      setState({ kind: 'loaded', subscription, busy: false, updateFailed: true });
    }
  }

  return (
    <AuthCard title={texts.title}>
      {state.kind === 'loading' && <LoadingState label="Updating your e-mail preferences…" />}
      {state.kind === 'problem' && (
        <div className="notice notice--error" role="alert">
          <p>{problemTexts[state.problem]}</p>
          {state.problem === 'loadFailed' && (
            <button
              type="button"
              className="button button--secondary"
              onClick={() => window.location.reload()}
            >
              Try again
            </button>
          )}
        </div>
      )}
      {state.kind === 'loaded' && (
        <div aria-busy={state.busy}>
          {state.subscription.unsubscribed ? (
            <>
              <StatusSentence text={texts.unsubscribedStatus} email={state.subscription.emailAddress} />
              <p className="muted">{texts.unsubscribedHint}</p>
              <button
                type="button"
                className="button button--block"
                disabled={state.busy}
                onClick={() => void change(false)}
              >
                Subscribe
              </button>
            </>
          ) : (
            <>
              <StatusSentence text={texts.subscribedStatus} email={state.subscription.emailAddress} />
              <p className="muted">{texts.subscribedHint}</p>
              <button
                type="button"
                className="button button--block button--secondary"
                disabled={state.busy}
                onClick={() => void change(true)}
              >
                Unsubscribe
              </button>
            </>
          )}
          {state.updateFailed && (
            <p className="field__error" role="alert">
              Your change could not be saved. Please try again.
            </p>
          )}
          <p className="muted">{coverageText}</p>
        </div>
      )}
    </AuthCard>
  );
}
