import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { notify } from '../../lib/notifications.ts';
import { SnackBar } from './snack-bar.tsx';

describe('SnackBar', () => {
  afterEach(() => vi.useRealTimers());

  it('announces each message in a live region for 3000 ms, one after the other', () => {
    vi.useFakeTimers();
    render(<SnackBar />);
    const region = screen.getByRole('status');
    expect(region.getAttribute('aria-live')).toBe('polite');

    act(() => {
      notify('The server returned an error. Please try again later.');
      notify('Second message');
    });
    expect(region.textContent).toBe('The server returned an error. Please try again later.');
    act(() => vi.advanceTimersByTime(2999));
    expect(region.textContent).toBe('The server returned an error. Please try again later.');
    act(() => vi.advanceTimersByTime(1));
    expect(region.textContent).toBe('Second message');
    act(() => vi.advanceTimersByTime(3000));
    expect(region.textContent).toBe('');
  });

  it('keeps a message meant to stay until the person next acts, then shows the next one', () => {
    vi.useFakeTimers();
    render(<SnackBar />);
    const region = screen.getByRole('status');
    act(() => {
      notify('You were signed out because there was no activity for a while.', 'untilActivity');
      notify('Second message');
    });
    act(() => vi.advanceTimersByTime(60 * 60_000));
    expect(region.textContent).toBe('You were signed out because there was no activity for a while.');
    act(() => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab' }));
    });
    expect(region.textContent).toBe('Second message');
  });
});
