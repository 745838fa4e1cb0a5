import { storageKeys } from '@entry/domain';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { errorBody, renderPortalPage, storeSession } from '../../../lib/session/portal-test-kit.tsx';
import {
  challengeId,
  factorsBody,
  fullSession,
  passkeyBody,
  pendingSession,
} from '../common/second-factor-fixtures.ts';
import { SecondFactorPage } from './second-factor-page.tsx';

const ceremony = vi.hoisted(() => ({ supported: false, sign: vi.fn() }));
vi.mock('../common/passkey-ceremony.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../common/passkey-ceremony.ts')>()),
  browserHasPasskeys: () => ceremony.supported,
  signWithPasskey: ceremony.sign,
}));

const factorsRoute = 'GET /api/auth/v1/admin/second-factors';
const codeRoute = 'POST /api/auth/v1/admin/sign-in/second-factor';
const location = () => screen.getByTestId('location').textContent;

function renderPage(routes: Parameters<typeof renderPortalPage>[1]['routes'] = {}) {
  return renderPortalPage(<SecondFactorPage scope="admin" />, { path: '/a/second-factor', routes });
}

describe('SecondFactorPage', () => {
  it('is only for a sign-in waiting for its second step', async () => {
    const { sent } = renderPage();
    await waitFor(() => expect(location()).toBe('/a/sign-in'));
    expect(sent).toEqual([]);
  });

  it('asks for the authenticator code, with the field focused, and finishes the sign-in with it', async () => {
    storeSession('admin', pendingSession);
    window.sessionStorage.setItem(storageKeys.redirect, '/a/security');
    const { sent } = renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 10 }) },
      [codeRoute]: { status: 200, body: fullSession() },
    });
    const field = await screen.findByLabelText('Authenticator code');
    expect(document.activeElement).toBe(field);
    expect(screen.getByRole('radio', { name: 'Use an authenticator app' })).toHaveProperty('checked', true);

    await userEvent.type(field, '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));

    await waitFor(() => expect(location()).toBe('/a/security'));
    expect(sent.at(-1)).toEqual({ route: codeRoute, body: { method: 'totp', code: '123456' } });
    expect(window.sessionStorage.getItem('admin-token')).toContain('"hasRestrictedAccess":false');
  });

  it('checks the code before sending it', async () => {
    storeSession('admin', pendingSession);
    const { sent } = renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ totp: { enrolled: true } }) },
    });
    await userEvent.type(await screen.findByLabelText('Authenticator code'), '12a');
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert').textContent).toBe('The code is 6 digits, such as 123456.');
    expect(sent.map((call) => call.route)).toEqual([factorsRoute]);
  });

  it.each([
    [
      401,
      { errorCode: 'InvalidSignIn', message: 'The code is not correct.', errors: [] },
      {},
      'The code is not correct.',
    ],
    [
      401,
      { errorCode: 'UserLocked', message: 'Locked.', errors: [] },
      { 'Retry-After': '900' },
      'Second-factor sign-in to this account is locked after too many failed attempts. Try again in 15 minutes, or ask your administrator to unlock it.',
    ],
    [
      401,
      { errorCode: 'NotAuthorized', message: 'Token has expired.', errors: [] },
      {},
      'This sign-in has timed out.',
    ],
    [429, errorBody('ToManyRequests'), {}, 'There have been too many attempts from your network.'],
  ])('explains a refused code (%s %j) and keeps the page', async (status, body, headers, text) => {
    storeSession('admin', pendingSession);
    renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ totp: { enrolled: true } }) },
      [codeRoute]: { status, body, headers },
    });
    await userEvent.type(await screen.findByLabelText('Authenticator code'), '654321');
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain(text);
    expect(location()).toBe('/a/second-factor');
  });

  it('offers a recovery code instead, and sends it as one', async () => {
    storeSession('admin', pendingSession);
    const { sent } = renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 3 }) },
      [codeRoute]: { status: 200, body: fullSession() },
    });
    await userEvent.click(await screen.findByRole('radio', { name: 'Use a recovery code' }));
    await userEvent.type(screen.getByLabelText('Recovery code'), 'ABCDE-12345');
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(location()).toBe('/a/home'));
    expect(sent.at(-1)?.body).toEqual({ method: 'recovery', code: 'ABCDE-12345' });
  });

  it('starts with the passkey where the user has one and the browser can use it', async () => {
    ceremony.supported = true;
    ceremony.sign.mockResolvedValueOnce({ id: 'credential', response: {} });
    storeSession('admin', pendingSession);
    const { sent } = renderPage({
      [factorsRoute]: {
        status: 200,
        body: factorsBody({ totp: { enrolled: true }, passkeys: [passkeyBody('p1', 'Laptop')] }),
      },
      'POST /api/auth/v1/admin/sign-in/passkey/options': {
        status: 200,
        body: { challengeId, options: { challenge: 'abc' } },
      },
      'POST /api/auth/v1/admin/sign-in/passkey': { status: 200, body: fullSession() },
    });
    const button = await screen.findByRole('button', { name: 'Use your passkey' });
    expect(document.activeElement).toBe(button);
    await userEvent.click(button);
    await waitFor(() => expect(location()).toBe('/a/home'));
    expect(ceremony.sign).toHaveBeenCalledWith({ challenge: 'abc' });
    expect(sent.at(-1)?.body).toEqual({ challengeId, response: { id: 'credential', response: {} } });
    ceremony.supported = false;
  });

  it('says so when the passkey prompt is canceled', async () => {
    ceremony.supported = true;
    ceremony.sign.mockRejectedValueOnce(Object.assign(new Error('canceled'), { name: 'NotAllowedError' }));
    storeSession('admin', pendingSession);
    renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ passkeys: [passkeyBody('p1', 'Laptop')] }) },
      'POST /api/auth/v1/admin/sign-in/passkey/options': {
        status: 200,
        body: { challengeId, options: { challenge: 'abc' } },
      },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Use your passkey' }));
    expect((await screen.findByRole('alert')).textContent).toContain('The passkey was not used');
    ceremony.supported = false;
  });

  it('offers to try again when the methods cannot be loaded', async () => {
    storeSession('admin', pendingSession);
    let answers = 0;
    renderPage({
      [factorsRoute]: () => {
        answers += 1;
        return answers === 1
          ? { status: 503, body: errorBody('ServiceUnavailable') }
          : { status: 200, body: factorsBody({ totp: { enrolled: true } }) };
      },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Try again' }));
    expect(await screen.findByLabelText('Authenticator code')).toBeTruthy();
  });
});
