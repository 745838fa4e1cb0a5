import { isApiError } from '@entry/client';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { FormAlert, FormField } from '../../components/form-field.tsx';
import { textsOf, useLanguage, useTexts } from '../../i18n/language.ts';
import { useAction } from '../../lib/forms/use-action.ts';
import { digitsCheck, useCheckedForm, useFocusWhen } from '../../lib/forms/use-checked-form.ts';
import { consumerStartPath } from '../../lib/pending-verification.ts';
import { usePortalServices } from '../../lib/session/portal-api.ts';
import { commonRefusalMessage, lockedMessage, waitInWords } from '../../lib/session/sign-in-errors.ts';
import { useSession } from '../../lib/session/use-session.ts';
import { consumerMessages } from './consumer-messages.ts';
import { landingPath } from './landing.ts';

/** The server sends a new code at most once a minute (docs/rules.md#consumer-mfa). */
export const resendCooldownMs = 60_000;

/** Seconds until `availableAt`, counting down once a second; 0 once it has passed. */
function useSecondsUntil(availableAt: number): number {
  const [, setTicks] = useState(0);
  useEffect(() => {
    if (availableAt <= Date.now()) return;
    const timer = window.setInterval(() => {
      setTicks((ticks) => ticks + 1);
      if (availableAt <= Date.now()) window.clearInterval(timer);
    }, 1000);
    return () => window.clearInterval(timer);
  }, [availableAt]);
  return Math.max(0, Math.ceil((availableAt - Date.now()) / 1000));
}

function codesLocked(error: unknown): string {
  const texts = textsOf('consumer', consumerMessages);
  return lockedMessage(error, { locked: texts.codesLocked, lockedFor: texts.codesLockedFor });
}

/**
 * A wrong code, with the tries left where the server said: none left means the code is used up,
 * or, when the server names a lock's end, that this code locked the code step.
 */
function wrongCode(triesLeft: number | undefined, locked: boolean, error: unknown): string {
  const texts = textsOf('consumer', consumerMessages);
  if (triesLeft === undefined) return texts.wrongCode;
  if (triesLeft > 0) return `${texts.wrongCode} ${texts.codeTriesLeft(triesLeft)}`;
  return locked ? codesLocked(error) : texts.codeUsedUp;
}

function codeRefusal(error: unknown): string {
  if (isApiError(error) && error.errorCode === 'InvalidSignIn') {
    return wrongCode(error.body?.triesLeft, error.body?.lockedUntil !== undefined, error);
  }
  if (isApiError(error) && error.errorCode === 'UserLocked') return codesLocked(error);
  if (isApiError(error) && (error.status === 401 || error.status === 403))
    return textsOf('consumer', consumerMessages).codeStepExpired;
  return commonRefusalMessage(error);
}

/** How long a refused resend must wait, where the server said (a 429's Retry-After). */
function resendWaitOf(error: unknown): number | undefined {
  return isApiError(error) && error.status === 429 ? error.retryAfterSeconds : undefined;
}

function resendRefusal(error: unknown): string {
  const waitSeconds = resendWaitOf(error);
  return waitSeconds === undefined
    ? codeRefusal(error)
    : textsOf('consumer', consumerMessages).noCodeNowFor(waitInWords(waitSeconds));
}

/** `/c/mfa`: the 6-digit code mailed after a verification, with a resend once a minute. */
export function MfaPage() {
  const { api: apiOf, storage } = usePortalServices();
  const api = apiOf('consumer');
  const navigate = useNavigate();
  const session = useSession('consumer');
  const [resendAvailableAt, setResendAvailableAt] = useState(() => Date.now() + resendCooldownMs);
  const secondsLeft = useSecondsUntil(resendAvailableAt);
  const [notice, setNotice] = useState<string | null>(null);
  const language = useLanguage();
  const texts = useTexts('consumer', consumerMessages);
  const form = useCheckedForm({ mfaCode: digitsCheck<'mfaCode'>(6, texts.fields.mfaCode) });
  const resending = useAction(form.setRefusal);
  // The code is all this page asks for: the field takes the focus, so the person can type at once.
  const codeFieldRef = useFocusWhen<HTMLInputElement>(true);
  const hasForm = session.state.token !== '' && session.state.restricted && !session.state.expired;

  if (!hasForm) {
    return <Navigate to={consumerStartPath(storage)} replace />;
  }

  const sendCode = form.onSubmitWith(async ({ mfaCode }) => {
    const result = await api.consumerAuth.mfaSignIn(mfaCode.trim(), language);
    navigate(landingPath(api.tokens, result.sessionGuid), { replace: true });
  }, codeRefusal);

  // A new attempt starts without the previous one's notice, as it does without its refusal.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    setNotice(null);
    return sendCode(event);
  };

  const resend = () => {
    setNotice(null);
    return resending.run(async () => {
      try {
        await api.consumerAuth.resendMfa(language);
      } catch (error) {
        // A refused resend also waits a minute, or as long as the server asks.
        setResendAvailableAt(Date.now() + Math.max(resendCooldownMs, (resendWaitOf(error) ?? 0) * 1000));
        throw error;
      }
      setNotice(textsOf('consumer', consumerMessages).codeSent);
      setResendAvailableAt(Date.now() + resendCooldownMs);
    }, resendRefusal);
  };

  return (
    <AuthCard title={texts.code.title}>
      <p>{texts.code.intro}</p>
      <form noValidate onSubmit={onSubmit} onChange={form.onChange}>
        {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
        {notice !== null && (
          <p className="notice form-alert" role="status">
            {notice}
          </p>
        )}
        <FormField
          label={texts.fields.mfaCode.label}
          className="field__input code-input"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          name="mfaCode"
          inputRef={codeFieldRef}
          error={form.errors.mfaCode}
        />
        <button
          className="button button--block"
          type="submit"
          disabled={form.submitting}
          aria-busy={form.submitting}
        >
          {texts.code.submit}
        </button>
      </form>
      <div className="portal-actions">
        <button
          type="button"
          className="button button--secondary"
          disabled={secondsLeft > 0 || resending.busy}
          onClick={resend}
        >
          {texts.code.sendNew}
        </button>
      </div>
      <p className="muted">
        {secondsLeft > 60
          ? texts.code.askAgain(waitInWords(secondsLeft))
          : secondsLeft > 0
            ? texts.code.askAgainInSeconds(secondsLeft)
            : texts.code.askNow}
      </p>
      <p className="portal-links">
        <Link to={consumerStartPath(storage)}>{texts.code.startAgain}</Link>
      </p>
    </AuthCard>
  );
}
