import { fireEvent } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { activityReportMs, IdleTimeout } from './idle-timeout.tsx';
import { renderPortalPage } from './portal-test-kit.tsx';

describe('IdleTimeout', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('passes activity on when the page opens, then at most once a minute while the person acts', () => {
    vi.useFakeTimers({ now: 0, toFake: ['Date'] });
    const reported = vi.fn();
    renderPortalPage(<IdleTimeout scope="admin" idleMs={30 * 60_000} onActive={reported} />, {
      path: '/a/home',
    });
    expect(reported).toHaveBeenCalledTimes(1);

    vi.setSystemTime(activityReportMs - 1000);
    fireEvent.keyDown(window);
    expect(reported).toHaveBeenCalledTimes(1);
    vi.setSystemTime(activityReportMs + 1000);
    fireEvent.pointerDown(window);
    expect(reported).toHaveBeenCalledTimes(2);
    vi.setSystemTime(activityReportMs + 3000);
    fireEvent.scroll(window);
    expect(reported).toHaveBeenCalledTimes(2);
    expect(Number(window.sessionStorage.getItem('idle-expired-time'))).toBe(
      activityReportMs + 3000 + 30 * 60_000,
    );
  });
});
