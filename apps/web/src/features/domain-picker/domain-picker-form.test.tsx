import { type AppConfig, subdomainFieldMessages } from '@entry/domain';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browserNavigation } from '../../lib/navigation.ts';
import { lookUpAccessLazily } from './api/load-access-lookup.ts';
import type { AccessLookup } from './api/look-up-access.ts';
import { DomainPickerForm } from './domain-picker-form.tsx';

vi.mock('./api/load-access-lookup.ts', () => ({ lookUpAccessLazily: vi.fn() }));

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: ['admin'],
  dashDomainMarkers: ['dash'],
};

const lookUp = vi.mocked(lookUpAccessLazily);

function setup() {
  const user = userEvent.setup();
  render(<DomainPickerForm config={config} />);
  return {
    user,
    field: screen.getByRole('textbox', { name: 'Domain' }),
    next: screen.getByRole('button', { name: 'Next' }),
  };
}

describe('DomainPickerForm', () => {
  let assign: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    assign = vi.spyOn(browserNavigation, 'assign').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
    lookUp.mockReset();
  });

  it('shows the parent domain as the suffix and the two hints', () => {
    setup();
    expect(screen.getByText('.localhost')).toBeTruthy();
    expect(
      screen.getByText(
        'If you received a letter in the mail, that letter should include the domain (e.g. sender.localhost).',
      ),
    ).toBeTruthy();
    expect(screen.getByText(/If you are associated with a partner of the provider/)).toBeTruthy();
  });

  it.each([
    ['', subdomainFieldMessages.required],
    ['ab', subdomainFieldMessages.length],
    ['a'.repeat(64), subdomainFieldMessages.length],
    ['sen_der', subdomainFieldMessages.invalidSubdomain],
    ['-sender', subdomainFieldMessages.invalidSubdomain],
    ['sender.example.com', subdomainFieldMessages.invalidSubdomain],
  ])('shows the message for %j once the field was touched, and sends nothing', async (value, message) => {
    const { user, field, next } = setup();
    if (value !== '') await user.type(field, value);
    await user.click(field);
    await user.tab();
    expect(screen.getByRole('alert').textContent).toBe(message);
    expect(field.getAttribute('aria-invalid')).toBe('true');
    await user.click(next);
    expect(lookUp).not.toHaveBeenCalled();
  });

  it('shows no message before the field is touched or the form submitted', async () => {
    setup();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('ignores a submit while the value is invalid, and shows why', async () => {
    const { user, next } = setup();
    await user.click(next);
    expect(screen.getByRole('alert').textContent).toBe(subdomainFieldMessages.required);
    expect(lookUp).not.toHaveBeenCalled();
  });

  it('disables Next while the lookup runs, then opens the consumer portal of the subdomain', async () => {
    let answer: (lookup: AccessLookup) => void = () => {};
    lookUp.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const { user, field, next } = setup();
    await user.type(field, 'sender');
    await user.click(next);
    expect(lookUp).toHaveBeenCalledWith('sender');
    expect((next as HTMLButtonElement).disabled).toBe(true);
    await user.click(next);
    expect(lookUp).toHaveBeenCalledTimes(1);
    answer({ kind: 'found', target: 'http://sender.localhost:4173/c/' });
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('http://sender.localhost:4173/c/'));
  });

  it('shows the not-found message under the field, and clears it when the value changes', async () => {
    lookUp.mockResolvedValue({ kind: 'notFound' });
    const { user, field, next } = setup();
    await user.type(field, 'nobody');
    await user.click(next);
    expect((await screen.findByRole('alert')).textContent).toBe(subdomainFieldMessages.notFound);
    expect((next as HTMLButtonElement).disabled).toBe(false);
    await user.type(field, 'x');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(assign).not.toHaveBeenCalled();
  });

  it.each([
    ['  Sender ', 'sender'],
    ['SENDER.localhost', 'sender'],
    ['https://sender.localhost:4173/', 'sender'],
    ['sender.localhost/c/account-summary', 'sender'],
  ])('reduces the pasted %j to the subdomain %j, shows it, and looks that up', async (pasted, subdomain) => {
    lookUp.mockReturnValue(new Promise(() => {}));
    const { user, field, next } = setup();
    await user.click(field);
    await user.paste(pasted);
    expect(screen.queryByRole('alert')).toBeNull();
    await user.click(next);
    expect(lookUp).toHaveBeenCalledWith(subdomain);
    expect((field as HTMLInputElement).value).toBe(subdomain);
  });

  it.each([
    ['unreachable', /cannot reach the server/],
    ['refused', /could not check this domain/],
  ] as const)('says why when the lookup is %s, and lets the person choose Next again', async (kind, text) => {
    lookUp.mockResolvedValue({ kind });
    const { user, field, next } = setup();
    await user.type(field, 'sender');
    await user.click(next);
    expect((await screen.findByRole('alert')).textContent).toMatch(text);
    expect((next as HTMLButtonElement).disabled).toBe(false);
    lookUp.mockResolvedValue({ kind: 'found', target: 'http://sender.localhost:4173/c/' });
    await user.click(next);
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('http://sender.localhost:4173/c/'));
  });
});
