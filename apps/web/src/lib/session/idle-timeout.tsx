import { type AppConfig, type Scope, storageKeys } from '@entry/domain';
import { useEffect, useId, useRef, useState } from 'react';
import { useTexts } from '../../i18n/language.ts';
import { usePortalServices } from './portal-api.ts';
import { sessionMessages } from './session-messages.ts';
import { useSignOut } from './use-sign-out.ts';

/**
 * Our choice, the spec gives no durations: a consumer is signed out after 15 minutes without
 * activity, warned one minute before, so a shared or lost phone does not keep an account open.
 */
export const consumerIdleTimeout = { idleMs: 15 * 60_000, warningMs: 60_000 } as const;

/** The server's default `STAFF_IDLE_MINUTES` (docs/rules.md#runtime), for a page that names none. */
const defaultStaffIdleMinutes = 30;

/** `STAFF_IDLE_MINUTES` as the server put it in the page. */
export function staffIdleMs(config: Pick<AppConfig, 'staffIdleMinutes'>): number {
  return (config.staffIdleMinutes ?? defaultStaffIdleMinutes) * 60_000;
}

const activityEvents = ['pointerdown', 'keydown', 'scroll', 'touchstart'] as const;
/** Activity moves the deadline at most this often; storage is not written on every key press. */
const activityThrottleMs = 1000;
/**
 * Activity is reported to the server at most this often: within the grace the server gives past
 * its idle limit (`idleGraceMs` in apps/server/src/services/session-endings.ts, decision record 032).
 */
export const activityReportMs = 60_000;
const tickMs = 1000;

/**
 * Signs the person out after a period without activity, with a warning dialog first: an
 * alertdialog that takes the focus, so screen readers read its title and text. The deadline lives
 * under `idle-expired-time` in session storage (docs/rules.md#web), so a reload keeps it. With
 * `onActive`, the activity that moves the deadline is passed on too, at most once a minute.
 */
export function IdleTimeout({
  scope,
  idleMs = consumerIdleTimeout.idleMs,
  warningMs = consumerIdleTimeout.warningMs,
  onActive,
}: {
  scope: Scope;
  idleMs?: number;
  warningMs?: number;
  onActive?: () => void;
}) {
  const { storage } = usePortalServices();
  const { signOut: signOutIdle } = useSignOut(scope, 'idle');
  const { signOut } = useSignOut(scope);
  const [secondsLeft, setSecondsLeft] = useState<number | null>(null);
  const texts = useTexts('session', sessionMessages);
  const warningShown = secondsLeft !== null;
  const warningShownRef = useRef(false);
  warningShownRef.current = warningShown;
  const signOutRef = useRef(signOutIdle);
  signOutRef.current = signOutIdle;
  const onActiveRef = useRef(onActive);
  onActiveRef.current = onActive;
  const lastReported = useRef<number | undefined>(undefined);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const textId = useId();

  const extend = () => {
    const now = Date.now();
    storage.setItem(storageKeys.idleExpiredTime, String(now + idleMs));
    if (lastReported.current !== undefined && now - lastReported.current < activityReportMs) return;
    lastReported.current = now;
    onActiveRef.current?.();
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: `extend` only reads props and storage that stay the same while mounted.
  useEffect(() => {
    // Opening a portal page is activity: a deadline left from an earlier session must not end this one.
    extend();
    let lastExtended = Date.now();
    let ended = false;
    const onActivity = () => {
      if (warningShownRef.current) return;
      const now = Date.now();
      if (now - lastExtended < activityThrottleMs) return;
      lastExtended = now;
      extend();
    };
    const tick = () => {
      if (ended) return;
      const left = Number(storage.getItem(storageKeys.idleExpiredTime) ?? 0) - Date.now();
      if (left <= 0) {
        ended = true;
        setSecondsLeft(null);
        void signOutRef.current();
      } else if (left <= warningMs) {
        setSecondsLeft(Math.ceil(left / 1000));
      } else {
        setSecondsLeft(null);
      }
    };
    for (const event of activityEvents) window.addEventListener(event, onActivity, { passive: true });
    const interval = window.setInterval(tick, tickMs);
    return () => {
      for (const event of activityEvents) window.removeEventListener(event, onActivity);
      window.clearInterval(interval);
    };
  }, [idleMs, warningMs, storage]);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog === null) return;
    if (warningShown && !dialog.open) {
      dialog.showModal();
      // No control takes the focus by itself (the domain's `dialogDefaults`): the dialog does.
      dialog.focus();
    } else if (!warningShown && dialog.open) {
      dialog.close();
    }
  }, [warningShown]);

  const stay = () => {
    extend();
    setSecondsLeft(null);
  };

  return (
    <dialog
      ref={dialogRef}
      className="idle-dialog"
      role="alertdialog"
      aria-labelledby={titleId}
      aria-describedby={textId}
      tabIndex={-1}
      onCancel={(event) => {
        event.preventDefault();
        stay();
      }}
    >
      <h2 id={titleId} className="section-title">
        {texts.idleWarningTitle}
      </h2>
      <p id={textId}>{texts.idleWarning(secondsLeft ?? 0)}</p>
      <div className="portal-actions">
        <button type="button" className="button" onClick={stay}>
          {texts.stay}
        </button>
        <button type="button" className="button button--secondary" onClick={() => void signOut()}>
          {texts.signOut}
        </button>
      </div>
    </dialog>
  );
}
