/** The business constants and limits, named once so UI, client and server agree. */

const msPerMinute = 60_000;

export const snackBar = {
  durationMs: 3000,
  verticalPosition: 'top',
  minWidthPx: 344,
  maxWidthPx: 672,
} as const;

export const dialogDefaults = {
  autoFocus: false,
  closeOnNavigation: true,
  hasBackdrop: true,
} as const;

export const helpPanel = {
  /** At or below this width the panel is an overlay, closed by default; wider, it is docked and open. */
  mobileMaxWidthPx: 1023,
  mobileMediaQuery: '(max-width: 1023px)',
  maxWidthPx: 480,
  animationSuppressedMsAfterBreakpointChange: 100,
} as const;

export const updateCheckIntervalMs = 60 * msPerMinute;

/** The service worker registers once the app is stable, or after this delay at the latest. */
export const serviceWorkerRegistrationDelayMs = 30_000;

export const subdomainLength = { min: 3, max: 63 } as const;

/** refreshAt sits at this fraction of the access-token lifetime. */
export const accessTokenRefreshFraction = 0.75;

export const tokenLifetimeUnitMs = msPerMinute;

/** Two-digit years above this map to 19xx, the others to 20xx. */
export const twoDigitYearPivot = 60;

/** Hours (0-23) at which the morning and the afternoon end. */
export const partOfDayBoundaries = { morningEndsAtHour: 12, afternoonEndsAtHour: 17 } as const;

/** The first year of the date-of-birth year list (docs/rules.md#date-of-birth). */
export const dateOfBirthFirstYear = 1900;

/** The product's own name, where no organization is known: the apps host, the picker, authenticator apps. */
export const productName = 'Account Access';
