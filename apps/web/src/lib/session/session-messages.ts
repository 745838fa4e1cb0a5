import { plural } from '../../i18n/plural.ts';

/** Our own plain texts for the session's events; the spec gives none for them. */
export const sessionMessages = {
  signedOut: 'You have signed out.',
  /** The signed-out page reached without a sign-out just before it (a session that ended, a reload). */
  notSignedIn: 'You are not signed in.',
  idleSignedOut: 'You were signed out because there was no activity for a while.',
  idleWarningTitle: 'Are you still there?',
  idleWarning: (seconds: number) =>
    `You will be signed out in ${plural('en-US', seconds, '1 second', `${seconds} seconds`)}.`,
  stay: 'Stay signed in',
  signOut: 'Sign out',
} as const;
