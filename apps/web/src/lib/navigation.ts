/**
 * Leaving the app for another address (a portal on another host, or a full reload). Kept in one
 * object so tests can observe where the app sends people without a real navigation.
 */
export const browserNavigation = {
  /** Adds a history entry: the person chose to go. */
  assign(url: string): void {
    window.location.assign(url);
  },
  /** Replaces the current entry: an automatic redirect that Back should not return to. */
  replace(url: string): void {
    window.location.replace(url);
  },
};
