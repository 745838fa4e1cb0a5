import { networkErrorMessage } from '@entry/client';
import { plural } from '../../i18n/plural.ts';

const locale = 'en-US';

/** Our own plain texts for a refused call that every sign-in page, the consumer's and the staff's, explains alike. */
export const refusalMessages = {
  network: networkErrorMessage,
  tooManyRequests:
    'There have been too many attempts from your network. Please wait a few minutes and try again.',
  // Neutral: a 429 with a wait may come from the per-address limit or from the consumer's code mails.
  tooManyRequestsFor: (wait: string) => `There have been too many attempts. Try again ${wait}.`,
  notAvailable: 'We could not complete this just now. Please try again in a moment.',
  /** A wait, after "try again": in a minute, in so many minutes, in about so many hours. */
  inAMinute: 'in a minute',
  inMinutes: (minutes: number) => `in ${minutes} minutes`,
  inAboutHours: (hours: number) => plural(locale, hours, 'in about 1 hour', `in about ${hours} hours`),
} as const;
