import { pageTexts } from '@entry/domain';

/** The frame of every page (header, help panel, footer, notices) in English; our own words beside the spec's. */
export const layoutTexts = {
  /** The locale of the dates, times, amounts and plurals of the pages. */
  locale: 'en-US',
  skipToContent: 'Skip to content',
  help: pageTexts.helpPanel.title,
  closeHelp: 'Close help',
  privacy: 'Privacy',
  languages: 'Language',
  loading: 'Loading…',
  pageNotLoaded: 'This page could not be loaded',
  unreachable:
    'We cannot reach the server right now. Check your internet connection, then try again. We will also try again as soon as your device is back online.',
  tryAgain: 'Try again',
  updateAvailable: pageTexts.updateToast.message,
  refresh: pageTexts.updateToast.action,
};
