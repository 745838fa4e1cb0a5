// @vitest-environment-options {"url": "http://nobody.localhost:4173/"}
import type { AppConfig } from '@entry/domain';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppConfigProvider } from '../../config/app-config-context.tsx';
import { browserNavigation } from '../../lib/navigation.ts';
import { lookUpAccessLazily } from './api/load-access-lookup.ts';
import { DomainPickerPage } from './domain-picker-page.tsx';

vi.mock('./api/load-access-lookup.ts', () => ({ lookUpAccessLazily: vi.fn() }));

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: ['admin'],
  dashDomainMarkers: ['dash'],
};
const lookUp = vi.mocked(lookUpAccessLazily);

function renderPage() {
  render(
    <AppConfigProvider config={config}>
      <DomainPickerPage />
    </AppConfigProvider>,
  );
}

describe('DomainPickerPage on a tenant host', () => {
  let replace: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    replace = vi.spyOn(browserNavigation, 'replace').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
    lookUp.mockReset();
  });

  it('says no organization uses an unknown host, above the form', async () => {
    lookUp.mockResolvedValue({ kind: 'notFound' });
    renderPage();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'No organization uses the address nobody.localhost. Check the address in your letter or e-mail, or enter your domain below.',
    );
    expect(screen.getByRole('textbox', { name: 'Domain' })).toBeDefined();
    expect(lookUp).toHaveBeenCalledWith('nobody');
  });

  it('says when the server cannot be reached, and looks the host up again on Try again', async () => {
    lookUp.mockResolvedValue({ kind: 'unreachable' });
    renderPage();
    await screen.findByRole('button', { name: 'Try again' });
    expect(screen.queryByRole('textbox', { name: 'Domain' })).toBeNull();

    lookUp.mockResolvedValue({ kind: 'found', target: 'http://nobody.localhost:4173/c/' });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    await vi.waitFor(() => expect(replace).toHaveBeenCalledWith('http://nobody.localhost:4173/c/'));
    expect(lookUp).toHaveBeenCalledTimes(2);
  });
});
