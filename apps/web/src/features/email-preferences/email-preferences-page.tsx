import { type EmailSubscriptionResult, isApiError } from '@entry/client';
import type { EmailStatusText } from '@entry/domain';
import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { LoadingState } from '../../components/loading-state.tsx';
import { useTexts } from '../../i18n/language.ts';
import { consumerApi } from '../../lib/api-client.ts';
import { useOrganizationLookup } from '../../lib/organization.ts';
import { preferencesTexts } from './email-preferences-texts.ts';

type Problem = 'missingToken' | 'unknownToken' | 'loadFailed';

type PageState =
  | { kind: 'loading' }
  | { kind: 'problem'; problem: Problem }
  | { kind: 'loaded'; subscription: EmailSubscriptionResult; busy: boolean; updateFailed: boolean };

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
  const texts = useTexts('preferences', preferencesTexts);
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
      {state.kind === 'loading' && <LoadingState label={texts.updating} />}
      {state.kind === 'problem' && (
        <div className="notice notice--error" role="alert">
          <p>{texts.problems[state.problem]}</p>
          {state.problem === 'loadFailed' && (
            <button
              type="button"
              className="button button--secondary"
              onClick={() => window.location.reload()}
            >
              {texts.tryAgain}
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
                {texts.subscribe}
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
                {texts.unsubscribe}
              </button>
            </>
          )}
          {state.updateFailed && (
            <p className="field__error" role="alert">
              {texts.notSaved}
            </p>
          )}
          <p className="muted">{texts.coverage}</p>
        </div>
      )}
    </AuthCard>
  );
}
