import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { type Answer, renderPortalPage, storeSession } from '../../../lib/session/portal-test-kit.tsx';
import {
  challengeId,
  enrolmentSession,
  factorsBody,
  fullSession,
  passkeyBody,
  pendingSession,
  recoveryCodes,
  stepUpRefusal,
} from '../common/second-factor-fixtures.ts';
import { SecurityPage } from './security-page.tsx';

const ceremony = vi.hoisted(() => ({ create: vi.fn() }));
vi.mock('../common/passkey-ceremony.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../common/passkey-ceremony.ts')>()),
  browserHasPasskeys: () => true,
  createPasskey: ceremony.create,
}));

const base = '/api/auth/v1/admin';
const factorsRoute = `GET ${base}/second-factors`;
const location = () => screen.getByTestId('location').textContent;
const routesSent = (sent: { route: string }[]) => sent.map((call) => call.route);

/** Answers each call of a route in turn; the last answer repeats. */
function inTurn(...answers: Answer[]) {
  let index = 0;
  return () => {
    const answer = answers[Math.min(index, answers.length - 1)] as Answer;
    index += 1;
    return answer;
  };
}

function renderPage(
  routes: Parameters<typeof renderPortalPage>[1]['routes'],
  scope: 'admin' | 'customer' = 'admin',
) {
  const path = scope === 'admin' ? '/a/security' : '/d/security';
  return renderPortalPage(<SecurityPage scope={scope} />, { path, routes });
}

const totpEnrolment = {
  secret: 'JBSWY3DPEHPK3PXPJBSWY3DP',
  otpauthUri: 'otpauth://totp/Account%20Access:ada?secret=JBSWY3DPEHPK3PXPJBSWY3DP',
  qrCodeSvg: '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
};

describe('SecurityPage, setting up a first factor after a password sign-in', () => {
  it('sets up an authenticator app, shows the recovery codes once, and then finishes the sign-in', async () => {
    storeSession('admin', enrolmentSession);
    const { sent } = renderPage({
      [factorsRoute]: { status: 200, body: factorsBody() },
      [`POST ${base}/second-factors/totp`]: { status: 200, body: totpEnrolment },
      [`POST ${base}/second-factors/totp/confirm`]: inTurn(
        {
          status: 401,
          body: { errorCode: 'InvalidSignIn', message: 'The code is not correct.', errors: [] },
        },
        { status: 200, body: { auth: fullSession(), recoveryCodes } },
      ),
    });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Set up a second factor');
    await userEvent.click(await screen.findByRole('button', { name: 'Set up an authenticator app' }));

    const field = await screen.findByLabelText('Code from the app');
    expect(document.activeElement).toBe(field);
    expect(screen.getByRole('img', { name: /QR code/ }).getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP');

    await userEvent.type(field, '111111');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm the app' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The code is not correct.');

    await userEvent.clear(field);
    await userEvent.type(field, '222222');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm the app' }));
    const heading = await screen.findByRole('heading', { name: 'Save your recovery codes' });
    expect(document.activeElement).toBe(heading);
    expect(within(screen.getByTestId('recovery-codes')).getAllByRole('listitem')).toHaveLength(10);
    expect(window.sessionStorage.getItem('admin-token')).toContain('"hasRestrictedAccess":false');

    await userEvent.click(screen.getByRole('button', { name: 'I have saved them, continue' }));
    await waitFor(() => expect(location()).toBe('/a/home'));
    expect(sent.filter((call) => call.route.endsWith('/confirm')).map((call) => call.body)).toEqual([
      { code: '111111' },
      { code: '222222' },
    ]);
  });

  it('adds a named passkey instead, through the browser prompt', async () => {
    ceremony.create.mockResolvedValueOnce({ id: 'new-credential' });
    storeSession('admin', enrolmentSession);
    const { sent } = renderPage({
      [factorsRoute]: { status: 200, body: factorsBody() },
      [`POST ${base}/second-factors/passkeys/options`]: {
        status: 200,
        body: { challengeId, options: { challenge: 'xyz' } },
      },
      [`POST ${base}/second-factors/passkeys`]: { status: 200, body: { auth: fullSession(), recoveryCodes } },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    expect(screen.getByRole('alert').textContent).toBe('Enter a name for this passkey.');
    expect(routesSent(sent)).toEqual([factorsRoute]);

    await userEvent.type(screen.getByLabelText('Name for a new passkey'), ' Work laptop ');
    await userEvent.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('heading', { name: 'Save your recovery codes' })).toBeTruthy();
    expect(ceremony.create).toHaveBeenCalledWith({ challenge: 'xyz' });
    expect(sent.find((call) => call.route === `POST ${base}/second-factors/passkeys`)?.body).toEqual({
      challengeId,
      name: 'Work laptop',
      response: { id: 'new-credential' },
    });
  });

  it('sends a session still waiting for its second step there, and a launched one home', async () => {
    storeSession('admin', pendingSession);
    renderPage({});
    await waitFor(() => expect(location()).toBe('/a/second-factor'));
  });

  it('is not for a launched customer session, whose factors are the admin’s', async () => {
    storeSession('customer', { accessType: 'Launched' });
    const { sent } = renderPage({}, 'customer');
    await waitFor(() => expect(location()).toBe('/d/home'));
    expect(sent).toEqual([]);
  });
});

describe('SecurityPage, managing the factors of a full session', () => {
  const laptop = passkeyBody('cred-1', 'Laptop', { lastUsedAt: '2026-03-05T10:00:00.000Z', backedUp: true });

  it('renames a passkey in place', async () => {
    storeSession('admin');
    const { sent } = renderPage({
      [factorsRoute]: inTurn(
        { status: 200, body: factorsBody({ passkeys: [laptop], recoveryCodesLeft: 9 }) },
        {
          status: 200,
          body: factorsBody({ passkeys: [{ ...laptop, name: 'Old laptop' }], recoveryCodesLeft: 9 }),
        },
      ),
      [`PATCH ${base}/second-factors/passkeys/cred-1`]: { status: 204 },
    });
    expect(await screen.findByText(/Synced to your other devices/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Rename Laptop' }));
    const field = screen.getByLabelText('New name for Laptop');
    expect(document.activeElement).toBe(field);
    await userEvent.clear(field);
    await userEvent.type(field, 'Old laptop');
    await userEvent.click(screen.getByRole('button', { name: 'Save the name' }));

    expect(await screen.findByText('Old laptop')).toBeTruthy();
    expect(screen.getByRole('status', { hidden: true }).textContent).toBe(
      'The passkey is now named Old laptop.',
    );
    expect(sent.find((call) => call.route.startsWith('PATCH'))?.body).toEqual({ name: 'Old laptop' });
  });

  it('asks for a second factor again when the server wants a step-up, then removes the passkey', async () => {
    storeSession('admin');
    const { sent } = renderPage({
      [factorsRoute]: inTurn(
        {
          status: 200,
          body: factorsBody({ totp: { enrolled: true }, passkeys: [laptop], recoveryCodesLeft: 9 }),
        },
        {
          status: 200,
          body: factorsBody({ totp: { enrolled: true }, passkeys: [laptop], recoveryCodesLeft: 9 }),
        },
        { status: 200, body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 9 }) },
      ),
      [`DELETE ${base}/second-factors/passkeys/cred-1`]: inTurn(stepUpRefusal(), { status: 204 }),
      [`POST ${base}/sign-in/second-factor`]: { status: 200, body: fullSession() },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Remove Laptop' }));
    const keep = screen.getByRole('button', { name: 'Cancel' });
    expect(document.activeElement).toBe(keep);
    await userEvent.click(screen.getByRole('button', { name: 'Remove the passkey' }));

    const prompt = await screen.findByRole('heading', { name: 'Confirm it is you' });
    expect(document.activeElement).toBe(prompt);
    expect(screen.getByText('Confirm it is you with your second factor first.')).toBeTruthy();
    await userEvent.click(await screen.findByRole('radio', { name: 'Use an authenticator app' }));
    await userEvent.type(screen.getByLabelText('Authenticator code'), '333333');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));

    await waitFor(() =>
      expect(screen.getByRole('status', { hidden: true }).textContent).toBe('The passkey Laptop is removed.'),
    );
    expect(screen.queryByRole('heading', { name: 'Confirm it is you' })).toBeNull();
    expect(routesSent(sent).filter((route) => !route.startsWith('GET'))).toEqual([
      `DELETE ${base}/second-factors/passkeys/cred-1`,
      `POST ${base}/sign-in/second-factor`,
      `DELETE ${base}/second-factors/passkeys/cred-1`,
    ]);
    await waitFor(() => expect(screen.queryByText('Laptop')).toBeNull());
  });

  it('leaves things as they were when the step-up is canceled', async () => {
    storeSession('admin');
    const { sent } = renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 9 }) },
      [`DELETE ${base}/second-factors/totp`]: stepUpRefusal(),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Remove the authenticator app' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove the app' }));
    await screen.findByRole('heading', { name: 'Confirm it is you' });
    const cancels = screen.getAllByRole('button', { name: 'Cancel' });
    await userEvent.click(cancels[cancels.length - 1] as HTMLElement);
    expect(await screen.findByRole('button', { name: 'Remove the authenticator app' })).toBeTruthy();
    expect(routesSent(sent).filter((route) => route.startsWith('DELETE'))).toHaveLength(1);
  });

  it('says why the last factor cannot go, in the server’s words', async () => {
    storeSession('admin');
    renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 9 }) },
      [`DELETE ${base}/second-factors/totp`]: {
        status: 409,
        body: { errorCode: 'InvalidState', message: 'You must keep a second factor.', errors: [] },
      },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Remove the authenticator app' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove the app' }));
    expect((await screen.findByRole('alert')).textContent).toBe('You must keep a second factor.');
  });

  it('shows how many recovery codes are left, and new ones once', async () => {
    storeSession('admin');
    renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 2 }) },
      [`POST ${base}/second-factors/recovery-codes`]: { status: 200, body: { recoveryCodes } },
    });
    expect((await screen.findByTestId('recovery-codes-left')).textContent).toBe(
      '2 recovery codes are left. Get new ones before you run out.',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Get new recovery codes' }));
    await userEvent.click(screen.getByRole('button', { name: 'Get new codes' }));
    expect(await screen.findByRole('heading', { name: 'Save your recovery codes' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'I have saved them' }));
    expect(await screen.findByRole('heading', { name: 'Recovery codes' })).toBeTruthy();
  });

  it('offers nothing to add where the organization turned second factors off', async () => {
    storeSession('customer', { accessType: 'Customer' });
    renderPage(
      { 'GET /api/auth/v1/customer/second-factors': { status: 200, body: factorsBody({ policy: 'off' }) } },
      'customer',
    );
    expect(
      await screen.findByText('Your organization does not use second factors, so none can be added.'),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Set up an authenticator app' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add a passkey' })).toBeNull();
  });
});

describe('SecurityPage, where the focus goes once something closes', () => {
  const laptop = passkeyBody('cred-1', 'Laptop');
  const button = (name: string) => screen.getByRole('button', { name });

  it('takes none on arrival, and gives it back to the button that opened a set-up, a question or a rename', async () => {
    storeSession('admin');
    renderPage({
      [factorsRoute]: { status: 200, body: factorsBody({ passkeys: [laptop], recoveryCodesLeft: 9 }) },
      [`POST ${base}/second-factors/totp`]: { status: 200, body: totpEnrolment },
    });
    await screen.findByRole('button', { name: 'Set up an authenticator app' });
    expect(document.activeElement).toBe(document.body);

    await userEvent.click(button('Set up an authenticator app'));
    await screen.findByLabelText('Code from the app');
    await userEvent.click(button('Cancel'));
    await waitFor(() => expect(document.activeElement).toBe(button('Set up an authenticator app')));

    await userEvent.click(button('Get new recovery codes'));
    expect(document.activeElement).toBe(button('Cancel'));
    await userEvent.click(button('Cancel'));
    expect(document.activeElement).toBe(button('Get new recovery codes'));

    await userEvent.click(button('Rename Laptop'));
    expect(document.activeElement).toBe(screen.getByLabelText('New name for Laptop'));
    await userEvent.click(button('Cancel'));
    expect(document.activeElement).toBe(button('Rename Laptop'));

    await userEvent.click(button('Remove Laptop'));
    expect(document.activeElement).toBe(button('Cancel'));
    await userEvent.click(button('Cancel'));
    expect(document.activeElement).toBe(button('Rename Laptop'));
  });
});
