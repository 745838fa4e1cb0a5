import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { consumerApi } from '../../lib/api-client.ts';
import { errorBody, fakeApi } from '../../testing/fake-api.ts';
import { EmailPreferencesPage } from './email-preferences-page.tsx';

vi.mock('../../lib/api-client.ts', () => ({ consumerApi: vi.fn() }));

const lookupPath = 'GET /api/v1/communication/email/subscription/token/mail-token';
const updatePath = 'POST /api/v1/communication/email/subscription';

function record(unsubscribed: boolean) {
  return { emailAddress: 'pat@example.com', unsubscribed, changedAt: '2026-03-01T10:00:00.000Z' };
}

function renderPage(path: string, routes: Parameters<typeof fakeApi>[0]) {
  const fake = fakeApi(routes);
  vi.mocked(consumerApi).mockReturnValue(fake.api);
  render(
    <MemoryRouter initialEntries={[path]}>
      <EmailPreferencesPage />
    </MemoryRouter>,
  );
  return fake;
}

function updates(sent: ReturnType<typeof fakeApi>['sent']) {
  return sent
    .filter((request) => request.method === 'POST')
    .map((request) => Object.fromEntries(request.url.searchParams));
}

describe('EmailPreferencesPage', () => {
  afterEach(() => vi.restoreAllMocks());

  it('unsubscribes as soon as it opens with a token, and shows the address in bold', async () => {
    const { sent } = renderPage('/unsubscribe?token=mail-token', {
      [lookupPath]: { status: 200, body: record(false) },
      [updatePath]: { status: 200, body: record(true) },
    });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Email Preferences');
    const status = await screen.findByText(/has been unsubscribed\./);
    expect(status.textContent).toBe('Your email pat@example.com has been unsubscribed.');
    expect(status.querySelector('strong')?.textContent).toBe('pat@example.com');
    expect(screen.getByText('To start receiving emails click subscribe below.')).toBeTruthy();
    // Which mails the setting covers, and which it never stops.
    expect(screen.getByText(/covers the emails the organization sends you about your account/)).toBeTruthy();
    expect(screen.getByText(/sign-in code or a password reset link, are always sent/)).toBeTruthy();
    expect(updates(sent)).toEqual([
      { Token: 'mail-token', EmailAddress: 'pat@example.com', Unsubscribed: 'true' },
    ]);
  });

  it('subscribes again, with the button disabled while the request runs, and shows what the server returned', async () => {
    let answerSubscribe: (value: { status: number; body: unknown }) => void = () => {};
    const answers = [
      Promise.resolve({ status: 200, body: record(true) }),
      new Promise<{ status: number; body: unknown }>((resolve) => (answerSubscribe = resolve)),
    ];
    const { sent } = renderPage('/unsubscribe?token=mail-token', {
      [lookupPath]: { status: 200, body: record(false) },
      [updatePath]: () => answers.shift() ?? Promise.reject(new Error('unexpected call')),
    });
    const user = userEvent.setup();
    const subscribe = await screen.findByRole('button', { name: 'Subscribe' });
    await user.click(subscribe);
    expect((subscribe as HTMLButtonElement).disabled).toBe(true);
    answerSubscribe({ status: 200, body: record(false) });
    const status = await screen.findByText(/is currently receiving emails\./);
    expect(status.textContent).toBe('Your email pat@example.com is currently receiving emails.');
    expect(screen.getByText('To stop receiving emails click unsubscribe below.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Unsubscribe' })).toBeTruthy();
    expect(updates(sent).map((query) => query.Unsubscribed)).toEqual(['true', 'false']);
  });

  it('keeps showing the state the server holds when a change fails', async () => {
    const answers = [
      { status: 200, body: record(true) },
      { status: 502, body: errorBody('FailedDependency') },
    ];
    renderPage('/unsubscribe?token=mail-token', {
      [lookupPath]: { status: 200, body: record(false) },
      [updatePath]: () => answers.shift() ?? { status: 599 },
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Subscribe' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/could not be saved/);
    expect(screen.getByText(/has been unsubscribed\./)).toBeTruthy();
  });

  it.each([
    ['without a token', '/unsubscribe', {}, /needs the link from one of our e-mails/],
    [
      'with an unknown token',
      '/unsubscribe?token=mail-token',
      { [lookupPath]: { status: 404, body: errorBody('ItemNotFound') } },
      /could not find the e-mail preferences/,
    ],
    [
      'with a forged token',
      '/unsubscribe?token=mail-token',
      { [lookupPath]: { status: 401, body: errorBody('NotAuthorized') } },
      /could not find the e-mail preferences/,
    ],
    [
      'when the server fails',
      '/unsubscribe?token=mail-token',
      { [lookupPath]: { status: 502, body: errorBody('FailedDependency') } },
      /could not be loaded right now/,
    ],
  ])('explains the problem %s, and only there (no snack-bar)', async (_name, path, routes, message) => {
    const { sent, notified } = renderPage(path, routes);
    expect((await screen.findByRole('alert')).textContent).toMatch(message);
    expect(updates(sent)).toEqual([]);
    expect(notified).toEqual([]);
  });
});
