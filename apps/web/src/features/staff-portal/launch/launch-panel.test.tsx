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
import { LaunchPanel } from './launch-panel.tsx';

const location = () => screen.getByTestId('location').textContent;
const alerts = () => screen.queryAllByRole('alert').map((alert) => alert.textContent);

describe('LaunchPanel', () => {
  function renderPanel(routes = {}) {
    storeSession('admin');
    return renderPortalPage(<LaunchPanel />, { path: '/a/home', routes });
  }

  it.each([
    ['', 'Enter the customer id.'],
    ['12ab', 'A customer id is a whole number, such as 1001.'],
    ['0', 'A customer id is a whole number, such as 1001.'],
  ])('refuses the customer id %j before sending', async (value, message) => {
    const { sent } = renderPanel();
    const user = userEvent.setup();
    if (value !== '') await user.type(screen.getByLabelText('Customer id'), value);
    await user.click(screen.getByRole('button', { name: 'Open the customer portal' }));
    expect(alerts()).toEqual([message]);
    expect(sent).toEqual([]);
  });

  it.each([
    ['Open the customer portal', 'customer'],
    ['Open dash billing', 'dashbilling'],
  ])('%s launches and opens the customer portal with the token', async (button, kind) => {
    const { sent } = renderPanel({
      [`POST /api/auth/v1/launch/${kind}/1001`]: { status: 200, body: { token: 'launch token' } },
    });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Customer id'), '1001');
    await user.click(screen.getByRole('button', { name: button }));
    await waitFor(() => expect(location()).toBe('/d/launch?token=launch+token'));
    expect(sent.map((call) => call.route)).toEqual([`POST /api/auth/v1/launch/${kind}/1001`]);
  });

  it('asks for a second factor when the server wants a step-up, then launches', async () => {
    let launches = 0;
    const { sent } = renderPanel({
      'POST /api/auth/v1/launch/customer/1001': () => {
        launches += 1;
        return launches === 1 ? stepUpRefusal() : { status: 200, body: { token: 'launch token' } };
      },
      'GET /api/auth/v1/admin/second-factors': {
        status: 200,
        body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 10 }),
      },
      'POST /api/auth/v1/admin/sign-in/second-factor': { status: 200, body: authTokenResult() },
    });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Customer id'), '1001');
    await user.click(screen.getByRole('button', { name: 'Open the customer portal' }));
    const prompt = await screen.findByRole('heading', { name: 'Confirm it is you' });
    expect(document.activeElement).toBe(prompt);
    await user.type(await screen.findByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(location()).toBe('/d/launch?token=launch+token'));
    expect(sent.map((call) => call.route)).toEqual([
      'POST /api/auth/v1/launch/customer/1001',
      'GET /api/auth/v1/admin/second-factors',
      'POST /api/auth/v1/admin/sign-in/second-factor',
      'POST /api/auth/v1/launch/customer/1001',
    ]);
  });

  it('says an unknown customer id once: in the panel, not in the snack-bar too', async () => {
    const { notified } = renderPanel({
      'POST /api/auth/v1/launch/customer/4242': { status: 404, body: errorBody('ItemNotFound') },
    });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Customer id'), '4242');
    await user.click(screen.getByRole('button', { name: 'Open the customer portal' }));
    await waitFor(() => expect(alerts()).toEqual(['No customer has this id.']));
    expect(notified).toEqual([]);
  });
});
