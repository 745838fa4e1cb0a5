import { describe, expect, it } from 'vitest';
import {
  dialogDefaults,
  helpPanel,
  serviceWorkerRegistrationDelayMs,
  snackBar,
  subdomainLength,
  updateCheckIntervalMs,
} from './constants.ts';

describe('business constants', () => {
  it.each([
    ['snack-bar duration', snackBar.durationMs, 3000],
    ['snack-bar position', snackBar.verticalPosition, 'top'],
    ['snack-bar min width', snackBar.minWidthPx, 344],
    ['snack-bar max width', snackBar.maxWidthPx, 672],
    ['dialog autofocus', dialogDefaults.autoFocus, false],
    ['dialog closes on navigation', dialogDefaults.closeOnNavigation, true],
    ['dialog backdrop', dialogDefaults.hasBackdrop, true],
    ['help panel breakpoint', helpPanel.mobileMaxWidthPx, 1023],
    ['help panel media query', helpPanel.mobileMediaQuery, '(max-width: 1023px)'],
    ['help panel max width', helpPanel.maxWidthPx, 480],
    ['help panel animation suppression', helpPanel.animationSuppressedMsAfterBreakpointChange, 100],
    ['update check interval', updateCheckIntervalMs, 3_600_000],
    ['service worker registration delay', serviceWorkerRegistrationDelayMs, 30_000],
    ['subdomain min length', subdomainLength.min, 3],
    ['subdomain max length', subdomainLength.max, 63],
  ])('%s is %j', (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });
});
