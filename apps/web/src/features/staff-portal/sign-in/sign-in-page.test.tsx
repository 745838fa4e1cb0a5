import { storageKeys } from '@entry/domain';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authTokenResult, errorBody, renderPortalPage } from '../../../lib/session/portal-test-kit.tsx';
import { challengeId, enrolmentSession, pendingSession } from '../common/second-factor-fixtures.ts';
import { SignInPage } from './sign-in-page.tsx';

const ceremony = vi.hoisted(() => ({ sign: vi.fn() }));
vi.mock('../common/passkey-ceremony.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../common/passkey-ceremony.ts')>()),
  browserHasPasskeys: () => true,
  signWithPasskey: ceremony.sign,
}));

const signInRoute = 'POST /api/auth/v1/admin/sign-in';

const location = () => screen.getByTestId('location').textContent;

async function fillAndSubmit(username = 'ada', password = 'correct horse') {
  const user = userEvent.setup();
  if (username !== '') await user.type(screen.getByLabelText('Username'), username);
  if (password !== '') await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('SignInPage', () => {
  it('shows field errors only once the form is submitted, and sends nothing while invalid', async () => {
    const user = userEvent.setup();
    const { sent } = renderPortalPage(<SignInPage scope="admin" />, { path: '/a/sign-in' });
    await user.click(screen.getByLabelText('Username'));
    await user.tab();
    expect(screen.queryByRole('alert')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getAllByRole('alert').map((alert) => alert.textContent)).toEqual([
      'Enter your username.',
      'Enter your password.',
    ]);
    expect(screen.getByLabelText('Username').getAttribute('aria-invalid')).toBe('true');
    expect(sent).toEqual([]);
  });

  it.each([
    ['InvalidSignIn', 401, 'The username or password is not correct. Check both and try again.'],
    ['UserLocked', 401, 'This account is locked for a while after too many failed sign-ins.'],
    ['ToManyRequests', 429, 'There have been too many attempts from your network.'],
    ['InvalidValue', 400, 'We could not complete this just now. Please try again in a moment.'],
  ])('explains a refused sign-in (%s) in plain words', async (errorCode, status, text) => {
    renderPortalPage(<SignInPage scope="admin" />, {
      path: '/a/sign-in',
      routes: { [signInRoute]: { status, body: errorBody(errorCode) } },
    });
    await fillAndSubmit();
    expect((await screen.findByRole('alert')).textContent).toContain(text);
    expect(location()).toBe('/a/sign-in');
  });

  it.each([
    [
      'a lock',
      401,
      'UserLocked',
      '900',
      'This account is locked after too many failed sign-ins. Try again in 15 minutes, or reset your password to unlock it now.',
    ],
    [
      'too many attempts',
      429,
      'ToManyRequests',
      '3600',
      'There have been too many attempts. Try again in about 1 hour.',
    ],
    [
      'too many attempts',
      429,
      'ToManyRequests',
      '20',
      'There have been too many attempts. Try again in a minute.',
    ],
  ])(
    'says when to try again after %s, when the server says',
    async (_, status, errorCode, retryAfter, text) => {
      renderPortalPage(<SignInPage scope="admin" />, {
        path: '/a/sign-in',
        routes: {
          [signInRoute]: { status, body: errorBody(errorCode), headers: { 'Retry-After': retryAfter } },
        },
      });
      await fillAndSubmit();
      expect((await screen.findByRole('alert')).textContent).toBe(text);
    },
  );

  it.each([
    [
      'UserLocked',
      401,
      'This account is locked for a while after too many failed sign-ins. Try again later, or reset your password to unlock it now.',
    ],
    [
      'ToManyRequests',
      429,
      'There have been too many attempts from your network. Please wait a few minutes and try again.',
    ],
  ])('says only "later" about %s when the server does not say when', async (errorCode, status, text) => {
    renderPortalPage(<SignInPage scope="customer" />, {
      path: '/d/sign-in',
      routes: { 'POST /api/auth/v1/customer/sign-in': { status, body: errorBody(errorCode) } },
    });
    await fillAndSubmit();
    expect((await screen.findByRole('alert')).textContent).toBe(text);
  });

  it('sends an expired password to the change page with the username', async () => {
    renderPortalPage(<SignInPage scope="customer" />, {
      path: '/d/sign-in',
      routes: { 'POST /api/auth/v1/customer/sign-in': { status: 401, body: errorBody('PasswordExpired') } },
    });
    await fillAndSubmit('casey');
    await waitFor(() => expect(location()).toBe('/d/change-password'));
  });

  it('signs in with the trimmed username and goes home, or back to the page an ended session left', async () => {
    const { sent } = renderPortalPage(<SignInPage scope="admin" />, {
      path: '/a/sign-in',
      routes: { [signInRoute]: { status: 200, body: authTokenResult() } },
    });
    await fillAndSubmit('  ada  ');
    await waitFor(() => expect(location()).toBe('/a/home'));
    expect(sent[0]?.body).toEqual({ username: 'ada', password: 'correct horse' });
    expect(window.sessionStorage.getItem('admin-token')).toContain('"accessType":"Admin"');
  });

  it('returns to the saved page of its own portal only', async () => {
    window.sessionStorage.setItem(storageKeys.redirect, '/a/change-password');
    renderPortalPage(<SignInPage scope="admin" />, {
      path: '/a/sign-in',
      routes: { [signInRoute]: { status: 200, body: authTokenResult() } },
    });
    await fillAndSubmit();
    await waitFor(() => expect(location()).toBe('/a/change-password'));
    expect(window.sessionStorage.getItem(storageKeys.redirect)).toBeNull();
  });

  it('ignores a saved page of another portal', async () => {
    window.sessionStorage.setItem(storageKeys.redirect, '/d/home');
    renderPortalPage(<SignInPage scope="admin" />, {
      path: '/a/sign-in',
      routes: { [signInRoute]: { status: 200, body: authTokenResult() } },
    });
    await fillAndSubmit();
    await waitFor(() => expect(location()).toBe('/a/home'));
  });

  it.each([
    [pendingSession, '/a/second-factor'],
    [enrolmentSession, '/a/security'],
  ])('sends a password sign-in that still needs a second factor on to it (%j)', async (session, page) => {
    window.sessionStorage.setItem(storageKeys.redirect, '/a/change-password');
    renderPortalPage(<SignInPage scope="admin" />, {
      path: '/a/sign-in',
      routes: { [signInRoute]: { status: 200, body: authTokenResult(session) } },
    });
    await fillAndSubmit();
    await waitFor(() => expect(location()).toBe(page));
    // The page an ended session left waits for the end of the sign-in.
    expect(window.sessionStorage.getItem(storageKeys.redirect)).toBe('/a/change-password');
  });

  it('signs in with a passkey alone, without a username and without the tab token', async () => {
    ceremony.sign.mockResolvedValueOnce({ id: 'credential' });
    const { sent } = renderPortalPage(<SignInPage scope="customer" />, {
      path: '/d/sign-in',
      routes: {
        'POST /api/auth/v1/customer/sign-in/passkey/options': {
          status: 200,
          body: { challengeId, options: { challenge: 'abc', allowCredentials: [] } },
        },
        'POST /api/auth/v1/customer/sign-in/passkey': {
          status: 200,
          body: authTokenResult({ accessType: 'Customer' }),
        },
      },
    });
    await userEvent.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    await waitFor(() => expect(location()).toBe('/d/home'));
    expect(sent.map((call) => call.route)).toEqual([
      'POST /api/auth/v1/customer/sign-in/passkey/options',
      'POST /api/auth/v1/customer/sign-in/passkey',
    ]);
    expect(sent[1]?.body).toEqual({ challengeId, response: { id: 'credential' } });
  });

  it('says when a passkey is not registered, in the server’s words', async () => {
    ceremony.sign.mockResolvedValueOnce({ id: 'unknown' });
    renderPortalPage(<SignInPage scope="admin" />, {
      path: '/a/sign-in',
      routes: {
        'POST /api/auth/v1/admin/sign-in/passkey/options': {
          status: 200,
          body: { challengeId, options: { challenge: 'abc' } },
        },
        'POST /api/auth/v1/admin/sign-in/passkey': {
          status: 401,
          body: { errorCode: 'InvalidSignIn', message: 'This passkey is not registered.', errors: [] },
        },
      },
    });
    await userEvent.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    expect((await screen.findByRole('alert')).textContent).toBe('This passkey is not registered.');
    expect(location()).toBe('/a/sign-in');
  });
});
