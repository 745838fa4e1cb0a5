import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  authTokenResult,
  errorBody,
  renderPortalPage,
  storeSession,
} from '../../../lib/session/portal-test-kit.tsx';
import { factorsBody, stepUpRefusal } from '../common/second-factor-fixtures.ts';
import { ChangePasswordPage } from './change-password-page.tsx';
import { ResetPasswordPage } from './reset-password-page.tsx';

const changeRoute = 'POST /api/auth/v1/admin/password/change';
const location = () => screen.getByTestId('location').textContent;
const alerts = () => screen.queryAllByRole('alert').map((alert) => alert.textContent);

async function fillNewPassword(newPassword: string, confirmation = newPassword) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('New password'), newPassword);
  await user.type(screen.getByLabelText('Confirm the new password'), confirmation);
  return user;
}

describe('ChangePasswordPage', () => {
  async function fillForm(newPassword: string, confirmation = newPassword) {
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Current password'), 'old password');
    await fillNewPassword(newPassword, confirmation);
    await user.click(screen.getByRole('button', { name: 'Change the password' }));
  }

  it('checks the length and the confirmation before sending', async () => {
    const { sent } = renderPortalPage(<ChangePasswordPage scope="admin" />, { path: '/a/change-password' });
    await fillForm('short', 'other');
    expect(alerts()).toEqual(['Use at least 12 characters.', 'The two new passwords are not the same.']);
    expect(sent).toEqual([]);
  });

  it('shows a field’s error once it is touched, unlike the sign-in form', async () => {
    renderPortalPage(<ChangePasswordPage scope="admin" />, { path: '/a/change-password' });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('New password'), 'short');
    expect(alerts()).toEqual([]);
    await user.tab();
    expect(alerts()).toEqual(['Use at least 12 characters.']);
  });

  it('explains a weak password in one line, pointing to the advice beside the field rather than repeating it', async () => {
    renderPortalPage(<ChangePasswordPage scope="admin" />, {
      path: '/a/change-password',
      routes: { [changeRoute]: { status: 400, body: errorBody('WeakPassword') } },
    });
    await fillForm('password1234');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(
      'That password is too easy to guess. Try a few unrelated words together, as the advice below says.',
    );
    // The advice shows once, as the field's hint.
    expect(screen.getAllByText(/You do not need symbols, digits or capital letters\./)).toHaveLength(1);
  });

  it.each([
    ['InvalidSignIn', 401, 'The username or current password is not correct.'],
    ['ItemNotFound', 404, 'The username or current password is not correct.'],
    ['UserLocked', 401, 'This account is locked for a while'],
  ])('explains %s', async (errorCode, status, text) => {
    renderPortalPage(<ChangePasswordPage scope="admin" />, {
      path: '/a/change-password',
      routes: { [changeRoute]: { status, body: errorBody(errorCode) } },
    });
    await fillForm('violet harbour tractor');
    expect((await screen.findByRole('alert')).textContent).toContain(text);
  });

  it.each([
    ['UserLocked', 401, '1800', 'Try again in 30 minutes, or reset your password to unlock it now.'],
    ['ToManyRequests', 429, '600', 'There have been too many attempts. Try again in 10 minutes.'],
  ])('says when to try again after %s', async (errorCode, status, retryAfter, text) => {
    renderPortalPage(<ChangePasswordPage scope="admin" />, {
      path: '/a/change-password',
      routes: {
        [changeRoute]: { status, body: errorBody(errorCode), headers: { 'Retry-After': retryAfter } },
      },
    });
    await fillForm('violet harbour tractor');
    expect((await screen.findByRole('alert')).textContent).toContain(text);
  });

  it('ends this tab’s session after a change, since the server ended every session of the account', async () => {
    window.sessionStorage.setItem('session-guid', 'session-1');
    const { sent, notified } = renderPortalPage(<ChangePasswordPage scope="admin" />, {
      path: '/a/change-password',
      routes: { [changeRoute]: { status: 204 } },
    });
    await fillForm('violet harbour tractor');
    await waitFor(() => expect(location()).toBe('/a/sign-in'));
    expect(sent[0]?.body).toEqual({
      username: 'ada',
      currentPassword: 'old password',
      newPassword: 'violet harbour tractor',
    });
    expect(notified).toEqual([]);
    expect(window.sessionStorage.getItem('session-guid')).toBeNull();
  });

  it('asks a signed-in user for a second factor when the server wants a step-up, then changes the password', async () => {
    storeSession('admin');
    let changes = 0;
    const { sent } = renderPortalPage(<ChangePasswordPage scope="admin" />, {
      path: '/a/change-password',
      routes: {
        [changeRoute]: () => {
          changes += 1;
          return changes === 1 ? stepUpRefusal() : { status: 204 };
        },
        'GET /api/auth/v1/admin/second-factors': {
          status: 200,
          body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 10 }),
        },
        'POST /api/auth/v1/admin/sign-in/second-factor': { status: 200, body: authTokenResult() },
      },
    });
    await fillForm('violet harbour tractor');
    const user = userEvent.setup();
    await screen.findByRole('heading', { name: 'Confirm it is you' });
    expect(screen.queryByRole('button', { name: 'Change the password' })).toBeNull();
    await user.type(await screen.findByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(location()).toBe('/a/sign-in'));
    expect(sent.map((call) => call.route)).toEqual([
      changeRoute,
      'GET /api/auth/v1/admin/second-factors',
      'POST /api/auth/v1/admin/sign-in/second-factor',
      changeRoute,
    ]);
  });

  it('says the password expired when the session passed its second factor and is good only for the change', () => {
    storeSession('admin', { accessType: 'PasswordExpired', hasRestrictedAccess: true });
    renderPortalPage(<ChangePasswordPage scope="admin" />, { path: '/a/change-password' });
    expect(alerts()).toEqual(['Your password has expired. Choose a new one to continue.']);
  });

  it('says why it opened when the password expired, with the username filled in', () => {
    renderPortalPage(<ChangePasswordPage scope="customer" />, {
      path: '/d/change-password',
      state: { username: 'casey', passwordExpired: true },
    });
    expect(alerts()).toEqual(['Your password has expired. Choose a new one to continue.']);
    expect((screen.getByLabelText('Username') as HTMLInputElement).value).toBe('casey');
  });
});

describe('ResetPasswordPage', () => {
  it('asks for a link and says so without telling whether the user exists', async () => {
    const { sent } = renderPortalPage(<ResetPasswordPage scope="customer" />, {
      path: '/d/reset-password',
      routes: { 'POST /api/auth/v1/customer/password/reset': { status: 204 } },
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Send the link' }));
    expect(alerts()).toEqual(['Enter your username.']);
    await user.type(screen.getByLabelText('Username'), 'casey');
    await user.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('status')).textContent).toContain('If an account has this username');
    expect(sent.map((call) => call.body)).toEqual([{ username: 'casey' }]);
  });

  it.each([
    [{ 'Retry-After': '240' }, 'There have been too many attempts. Try again in 4 minutes.'],
    [{}, 'There have been too many attempts from your network. Please wait a few minutes and try again.'],
  ])('says when a link can be asked for again after too many attempts (%j)', async (headers, text) => {
    renderPortalPage(<ResetPasswordPage scope="customer" />, {
      path: '/d/reset-password',
      routes: {
        'POST /api/auth/v1/customer/password/reset': {
          status: 429,
          body: errorBody('ToManyRequests'),
          headers,
        },
      },
    });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Username'), 'casey');
    await user.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('alert')).textContent).toBe(text);
  });

  it('says when a new password can be tried again after too many attempts', async () => {
    renderPortalPage(<ResetPasswordPage scope="admin" />, {
      path: '/a/reset-password?token=mailed-token',
      routes: {
        'POST /api/auth/v1/admin/password/change': {
          status: 429,
          body: errorBody('ToManyRequests'),
          headers: { 'Retry-After': '61' },
        },
      },
    });
    const user = await fillNewPassword('violet harbour tractor');
    await user.click(screen.getByRole('button', { name: 'Save the new password' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'There have been too many attempts. Try again in 2 minutes.',
    );
  });

  it('sets the new password with the mailed token, which leaves the address', async () => {
    const { sent } = renderPortalPage(<ResetPasswordPage scope="customer" />, {
      path: '/d/reset-password?token=mailed-token',
      routes: { 'POST /api/auth/v1/customer/password/change': { status: 204 } },
    });
    await waitFor(() => expect(location()).toBe('/d/reset-password'));
    const user = await fillNewPassword('violet harbour tractor');
    await user.click(screen.getByRole('button', { name: 'Save the new password' }));
    expect((await screen.findByRole('status')).textContent).toContain('Your password has been changed.');
    expect(sent.find((call) => call.route.endsWith('/password/change'))?.body).toEqual({
      resetToken: 'mailed-token',
      newPassword: 'violet harbour tractor',
    });
    // Spent: the tab forgets it.
    expect(window.sessionStorage.getItem('customer-reset-token')).toBeNull();
  });

  it('keeps working after a reload: the token, gone from the address, is kept for the tab', async () => {
    window.sessionStorage.setItem('customer-reset-token', 'mailed-token');
    const { sent } = renderPortalPage(<ResetPasswordPage scope="customer" />, {
      path: '/d/reset-password',
      routes: { 'POST /api/auth/v1/customer/password/change': { status: 204 } },
    });
    expect(screen.getByRole('heading', { name: 'Choose a new password' })).toBeTruthy();
    const user = await fillNewPassword('violet harbour tractor');
    await user.click(screen.getByRole('button', { name: 'Save the new password' }));
    await screen.findByRole('status');
    expect(sent.find((call) => call.route.endsWith('/password/change'))?.body).toEqual({
      resetToken: 'mailed-token',
      newPassword: 'violet harbour tractor',
    });
  });

  it.each([
    ['InvalidState', 409, 'This link has already been used or has expired. Ask for a new one below.'],
    ['ItemNotFound', 404, 'This link is not valid.'],
  ])(
    'says at once, before a password is typed, that the mailed link is refused (%s)',
    async (errorCode, status, text) => {
      const { sent } = renderPortalPage(<ResetPasswordPage scope="customer" />, {
        path: '/d/reset-password?token=old-token',
        routes: {
          'POST /api/auth/v1/customer/password/reset/check': { status, body: errorBody(errorCode) },
        },
      });
      expect((await screen.findByRole('alert')).textContent).toContain(text);
      expect(screen.queryByLabelText('New password')).toBeNull();
      expect(screen.getByRole('button', { name: 'Send the link' })).toBeTruthy();
      expect(sent).toEqual([
        { route: 'POST /api/auth/v1/customer/password/reset/check', body: { resetToken: 'old-token' } },
      ]);
      expect(window.sessionStorage.getItem('customer-reset-token')).toBeNull();
    },
  );

  it.each([
    ['InvalidState', 409, 'This link has already been used or has expired. Ask for a new one below.'],
    ['ItemNotFound', 404, 'This link is not valid.'],
  ])('offers a new link when the mailed one is refused at Save (%s)', async (errorCode, status, text) => {
    renderPortalPage(<ResetPasswordPage scope="admin" />, {
      path: '/a/reset-password?token=old-token',
      routes: { 'POST /api/auth/v1/admin/password/change': { status, body: errorBody(errorCode) } },
    });
    const user = await fillNewPassword('violet harbour tractor');
    await user.click(screen.getByRole('button', { name: 'Save the new password' }));
    expect((await screen.findByRole('alert')).textContent).toContain(text);
    expect(screen.getByRole('button', { name: 'Send the link' })).toBeTruthy();
    expect(window.sessionStorage.getItem('admin-reset-token')).toBeNull();
  });
});
