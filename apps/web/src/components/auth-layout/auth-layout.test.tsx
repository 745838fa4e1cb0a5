import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installMatchMedia } from '../../testing/match-media.ts';
import { AuthCard, AuthLayout } from './auth-layout.tsx';

function renderLayout(width: number) {
  const viewport = installMatchMedia(width);
  render(
    <AuthLayout>
      <AuthCard title="Enter Domain">
        <button type="button">Next</button>
      </AuthCard>
    </AuthLayout>,
  );
  const trigger = screen.getByRole('button', { name: 'Need help?' });
  const panel = () => document.getElementById(trigger.getAttribute('aria-controls') ?? '') as HTMLElement;
  return { viewport, trigger, panel };
}

describe('AuthLayout help panel', () => {
  afterEach(() => vi.useRealTimers());

  it('on a phone (375 px) is a closed overlay that opens as a dialog and closes with its button', async () => {
    const user = userEvent.setup();
    const { trigger, panel } = renderLayout(375);
    expect(panel().hidden).toBe(true);
    expect(trigger.getAttribute('aria-expanded')).toBe('false');

    await user.click(trigger);
    const dialog = screen.getByRole('dialog', { name: 'Need help?' });
    expect(dialog).toBe(panel());
    expect(panel().hidden).toBe(false);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close help' }));
    expect(document.querySelector('main')?.hasAttribute('inert')).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Close help' }));
    expect(panel().hidden).toBe(true);
    expect(document.activeElement).toBe(trigger);
    expect(document.querySelector('main')?.hasAttribute('inert')).toBe(false);
  });

  it('closes the overlay with Escape and returns focus to the Need help? button', async () => {
    const user = userEvent.setup();
    const { trigger, panel } = renderLayout(375);
    await user.click(trigger);
    await user.keyboard('{Escape}');
    expect(panel().hidden).toBe(true);
    expect(document.activeElement).toBe(trigger);
  });

  it('on a wide screen (1280 px) is docked and open, not a dialog, and can still be closed', async () => {
    const user = userEvent.setup();
    const { trigger, panel } = renderLayout(1280);
    expect(panel().hidden).toBe(false);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByRole('complementary', { name: 'Need help?' })).toBe(panel());
    expect(document.querySelector('main')?.hasAttribute('inert')).toBe(false);
    await user.click(trigger);
    expect(panel().hidden).toBe(true);
  });

  it('follows the breakpoint at 1024 px and suppresses the animation for 100 ms after a change', () => {
    vi.useFakeTimers();
    const { viewport, panel } = renderLayout(1280);
    const layout = () => document.querySelector('.auth-layout') as HTMLElement;

    act(() => viewport.setWidth(1023));
    expect(panel().hidden).toBe(true);
    expect(layout().classList.contains('auth-layout--no-animation')).toBe(true);
    act(() => vi.advanceTimersByTime(99));
    expect(layout().classList.contains('auth-layout--no-animation')).toBe(true);
    act(() => vi.advanceTimersByTime(1));
    expect(layout().classList.contains('auth-layout--no-animation')).toBe(false);

    act(() => viewport.setWidth(1024));
    expect(panel().hidden).toBe(false);
    expect(layout().classList.contains('auth-layout--no-animation')).toBe(true);
  });

  it('shows the page title in the card', () => {
    renderLayout(375);
    expect(screen.getByRole('heading', { level: 1, name: 'Enter Domain' })).toBeTruthy();
  });
});
