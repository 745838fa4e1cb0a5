import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  authTokenResult,
  errorBody,
  renderPortalPage,
  type ScriptedRoutes,
} from '../../lib/session/portal-test-kit.tsx';
import { MfaPage } from './mfa-page.tsx';

const mfaRoute = 'POST /api/auth/v1/consumer/sign-in/mfa';
const resendRoute = 'POST /api/auth/v1/consumer/sign-in/mfa/resend';
const location = () => screen.getByTestId('location').textContent;

function renderMfa(routes: ScriptedRoutes) {
  window.sessionStorage.setItem('token-redirect', 'documents/9');
  window.sessionStorage.setItem(
    'consumer-token',
    JSON.stringify({
      token: authTokenResult().accessToken,
      accessType: 'MfaPending',
      refreshAt: Date.now() + 600_000,
      expiresAt: Date.now() + 3_600_000,
      hasRestrictedAccess: true,
    }),
  );
  return renderPortalPage(<MfaPage />, { path: '/c/mfa', routes });
}

describe('MfaPage', () => {
  afterEach(() => vi.useRealTimers());

  it('checks the code has 6 digits only after submission', async () => {
    const { sent } = renderMfa({});
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('6-digit code'), '12a');
    expect(screen.queryByRole('alert')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert').textContent).toBe('The code has 6 digits.');
    expect(sent).toEqual([]);
  });

  it('puts the focus on the code field, so the code can be typed at once', () => {
    renderMfa({});
    expect(document.activeElement).toBe(screen.getByLabelText('6-digit code'));
  });

  it('takes the previous refusal away when the next attempt has a problem of its own', async () => {
    renderMfa({ [mfaRoute]: { status: 409, body: errorBody('InvalidSignIn') } });
    const user = userEvent.setup();
    const field = screen.getByLabelText('6-digit code');
    await user.type(field, '123456');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByText(/That code is not right/);
    await user.clear(field);
    await user.type(field, '12');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getAllByRole('alert').map((alert) => alert.textContent)).toEqual([
      'The code has 6 digits.',
    ]);
  });

  it('refuses a wrong code in plain words', async () => {
    renderMfa({ [mfaRoute]: { status: 409, body: errorBody('InvalidSignIn') } });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('6-digit code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      'That code is not right, or it has expired.',
    );
  });

  it.each([
    [
      { triesLeft: 2 },
      {},
      'That code is not right, or it has expired. Check the latest mail from us, or ask for a new code. 2 tries left.',
    ],
    [
      { triesLeft: 1 },
      {},
      'That code is not right, or it has expired. Check the latest mail from us, or ask for a new code. 1 try left.',
    ],
    [{ triesLeft: 0 }, {}, 'This code cannot be used any more. Ask for a new code below.'],
    [
      { triesLeft: 0, lockedUntil: '2030-01-01T00:00:00.000Z' },
      { 'Retry-After': '900' },
      'For your security, codes are locked after too many wrong ones. Try again in 15 minutes.',
    ],
  ])('says how many tries a wrong code leaves (%j)', async (extra, headers, text) => {
    renderMfa({ [mfaRoute]: { status: 409, body: { ...errorBody('InvalidSignIn'), ...extra }, headers } });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('6-digit code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toBe(text);
  });

  it('lands on the page the link targeted, with the session guid', async () => {
    renderMfa({
      [mfaRoute]: { status: 200, body: authTokenResult({ accessType: 'Consumer', sessionGuid: 'guid-2' }) },
    });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('6-digit code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(location()).toBe('/c/documents/9?session-guid=guid-2'));
  });

  it('lets a new code be asked for once a minute', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    let resends = 0;
    const { sent } = renderMfa({
      [resendRoute]: () => {
        resends += 1;
        return resends === 1
          ? { status: 204 }
          : { status: 429, body: errorBody('ToManyRequests'), headers: { 'Retry-After': '20' } };
      },
    });
    const resend = () => screen.getByRole('button', { name: 'Send a new code' }) as HTMLButtonElement;
    expect(resend().disabled).toBe(true);
    expect(screen.getByText('You can ask for a new code in 60 seconds.')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(resend().disabled).toBe(false);

    await act(async () => resend().click());
    expect((await screen.findByRole('status')).textContent).toBe(
      'We have sent a new code. It replaces the previous one.',
    );
    expect(resend().disabled).toBe(true);
    // The new code is mailed in the page's language.
    expect(sent.find((call) => call.route === resendRoute)?.body).toEqual({ language: 'en' });

    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await act(async () => resend().click());
    expect((await screen.findByRole('alert')).textContent).toContain(
      'We cannot send another code just now. You can ask for a new code in a minute.',
    );
  });

  it.each([
    [
      'a lock, with when to try again',
      { status: 403, body: errorBody('UserLocked'), headers: { 'Retry-After': '900' } },
      'For your security, codes are locked after too many wrong ones. Try again in 15 minutes.',
    ],
    [
      'a lock',
      { status: 403, body: errorBody('UserLocked') },
      'For your security, codes are locked for a while after too many wrong ones. Please try again later.',
    ],
    [
      'too many attempts, with when to try again',
      { status: 429, body: errorBody('ToManyRequests'), headers: { 'Retry-After': '120' } },
      'There have been too many attempts. Try again in 2 minutes.',
    ],
  ])('explains %s', async (_, answer, text) => {
    renderMfa({ [mfaRoute]: answer });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('6-digit code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toBe(text);
  });

  it('says when a new code can be asked for once the code mails of the hour are used up', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    renderMfa({
      [resendRoute]: {
        status: 429,
        body: errorBody('ToManyRequests'),
        headers: { 'Retry-After': String(50 * 60) },
      },
    });
    const resend = () => screen.getByRole('button', { name: 'Send a new code' }) as HTMLButtonElement;
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await act(async () => resend().click());

    expect((await screen.findByRole('alert')).textContent).toBe(
      'We cannot send another code just now. You can ask for a new code in 50 minutes.',
    );
    expect(resend().disabled).toBe(true);
    expect(screen.getByText('You can ask for a new code in 50 minutes.')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(49 * 60_000));
    expect(screen.getByText('You can ask for a new code in 60 seconds.')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(resend().disabled).toBe(false);
  });

  it('says too many attempts, without a time, when a refused resend does not say when', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    renderMfa({ [resendRoute]: { status: 429, body: errorBody('ToManyRequests') } });
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await act(async () => screen.getByRole('button', { name: 'Send a new code' }).click());
    expect((await screen.findByRole('alert')).textContent).toBe(
      'There have been too many attempts from your network. Please wait a few minutes and try again.',
    );
  });

  it('sends a person without a pending code step to verify who they are', async () => {
    renderPortalPage(<MfaPage />, { path: '/c/mfa' });
    await waitFor(() => expect(location()).toBe('/c/verify-identity'));
  });
});
