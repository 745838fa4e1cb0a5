import { pageTexts } from '@entry/domain';

/** The e-mail preferences page: the spec's texts, and our own for what it leaves open. */
export const preferencesTexts = {
  ...pageTexts.emailPreferences,
  /**
   * Which mails the setting covers: unsubscribing stops the organization's mail about the account,
   * never a mail the person asked for (docs/decisions/004).
   */
  coverage:
    'This setting covers the emails the organization sends you about your account. Emails you ask for yourself, such as a sign-in code or a password reset link, are always sent.',
  /** A page opened without a usable link. */
  problems: {
    missingToken:
      'This page needs the link from one of our e-mails. Open the unsubscribe link in the e-mail you received.',
    unknownToken:
      'We could not find the e-mail preferences for this link. Check that you opened the whole link from the e-mail, or open it again.',
    loadFailed: 'Your e-mail preferences could not be loaded right now. Please try again in a few minutes.',
  },
  updating: 'Updating your e-mail preferences…',
  tryAgain: 'Try again',
  subscribe: 'Subscribe',
  unsubscribe: 'Unsubscribe',
  notSaved: 'Your change could not be saved. Please try again.',
};
