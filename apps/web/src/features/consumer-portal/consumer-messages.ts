import { plural } from '../../i18n/plural.ts';

const locale = 'en-US';

/** "1 try left", "3 tries left": the count every refused answer or code states. */
const triesLeftCount = (count: number) => plural(locale, count, '1 try left', `${count} tries left`);

const theOrganization = 'the organization that wrote to you';

/** A page a link can lead to: its heading and one sentence on what it is for. */
interface TargetTexts {
  title: string;
  description: string;
}

/** Our own plain texts for the consumer's pages (verification, code, portal); the spec gives none. */
export const consumerMessages = {
  noMatch: 'These details do not match our records. Check them and try again.',
  /** Said after a refused answer, beside the refusal, while tries are left. */
  triesLeft: (count: number) => `${triesLeftCount(count)} before verification locks for a while.`,
  /** Said after a wrong code while tries are left: of the code, or of the codes before they lock. */
  codeTriesLeft: (count: number) => `${triesLeftCount(count)}.`,
  /** `who`: the organization's name, or `theOrganization` until it is known. */
  locked: (who: string) =>
    `For your security, verification is locked for a while after too many attempts. Please try again later, or contact ${who}.`,
  /** `time`: when the lock ends, in the person's time zone (`lockEndInWords`). */
  lockedUntil: (time: string, who: string) =>
    `For your security, verification is locked after too many attempts. Try again after ${time}, or contact ${who}.`,
  /** A lock's end on a later day than today: "3:45 PM tomorrow", "3:45 PM on Nov 28". */
  lockEndTomorrow: (time: string) => `${time} tomorrow`,
  lockEndOn: (time: string, day: string) => `${time} on ${day}`,
  theOrganization,
  ambiguous:
    'More than one account matches these details. Please open the link from your letter or e-mail instead.',
  notFound: 'We could not find an account with these details. Check them and try again.',
  serviceUnavailable: 'We cannot check your details right now. Please try again in a few minutes.',
  wrongCode:
    'That code is not right, or it has expired. Check the latest mail from us, or ask for a new code.',
  codeUsedUp: 'This code cannot be used any more. Ask for a new code below.',
  codesLocked:
    'For your security, codes are locked for a while after too many wrong ones. Please try again later.',
  codesLockedFor: (wait: string) =>
    `For your security, codes are locked after too many wrong ones. Try again ${wait}.`,
  codeStepExpired: 'Your verification has expired. Please confirm who you are again.',
  codeSent: 'We have sent a new code. It replaces the previous one.',
  noCodeNowFor: (wait: string) => `We cannot send another code just now. You can ask for a new code ${wait}.`,
  noPortal:
    'This address does not belong to an organization. Please open the link from your letter or e-mail.',
  fields: {
    last4Ssn: {
      label: 'Last 4 digits of your Social Security number',
      required: 'Enter the last 4 digits of your Social Security number.',
      invalid: 'Enter exactly 4 digits.',
    },
    postalCode: {
      label: 'ZIP code',
      required: 'Enter your ZIP code.',
      invalid: 'Enter the 5 digits of your ZIP code.',
    },
    dateOfBirth: {
      legend: 'Date of birth',
      required: 'Choose the month, day and year of your birth.',
      invalid: 'This date does not exist. Check the day and the month.',
      month: 'Month',
      day: 'Day',
      year: 'Year',
    },
    mfaCode: {
      label: '6-digit code',
      required: 'Enter the 6-digit code from the mail.',
      invalid: 'The code has 6 digits.',
    },
  },
  verify: {
    title: "Confirm it's you",
    /** `asked`: one of `askedFor`. */
    intro: (asked: string) =>
      `To protect your account, please enter ${asked}. We use it only to check that this link is yours.`,
    askedFor: {
      Last4Ssn: 'the last 4 digits of your Social Security number',
      PostalCode: 'your ZIP code',
      DateOfBirth: 'your date of birth',
    },
    identityTitle: 'Verify your identity',
    identityIntro:
      'To protect your account, please enter the last 4 digits of your Social Security number, your ZIP code and your date of birth.',
    submit: 'Continue',
  },
  code: {
    title: 'Enter your code',
    intro:
      'We have sent a 6-digit code to the e-mail address we have on file for you. It works for 10 minutes.',
    submit: 'Continue',
    sendNew: 'Send a new code',
    /** `wait`: `waitInWords`, "in 2 minutes". */
    askAgain: (wait: string) => `You can ask for a new code ${wait}.`,
    askAgainInSeconds: (seconds: number) =>
      `You can ask for a new code in ${plural(locale, seconds, '1 second', `${seconds} seconds`)}.`,
    askNow: 'No mail? You can ask for a new code now.',
    startAgain: 'Start again',
  },
  signedOut: {
    title: 'Signed out',
    openAgainHint: (who: string) =>
      `To see your account with ${who} again, open your link again. Otherwise you can close this page.`,
    openAgain: 'Open your link again',
  },
  expired: {
    title: 'This link has expired',
    text: 'The link you opened is no longer valid. Links in letters and e-mails work for a limited time to keep your account safe.',
    hint: (who: string) =>
      `You can still reach your account by confirming who you are, or ask ${who} for a new link.`,
  },
  failed: {
    title: 'We could not sign you in',
    text: 'The connection to our service failed while opening your link. Nothing has changed on your account.',
    hint: 'Please try again: open the link from your letter or e-mail again in a few minutes, or confirm who you are to reach your account now.',
    backToStart: 'Back to the start',
  },
  confirmIdentity: 'Confirm your identity',
  portal: {
    welcomeTitle: 'Welcome',
    welcome: 'Welcome to your account.',
    targets: {
      'account-summary': {
        title: 'Account summary',
        description: 'An overview of your account with the organization that wrote to you.',
      },
      documents: { title: 'Documents', description: 'The letters and statements sent to you.' },
      'payment-options': { title: 'Payment options', description: 'The ways you can pay or set up a plan.' },
      'document-view': { title: 'Document', description: 'One of the letters or statements sent to you.' },
      'payment-method': { title: 'Payment method', description: 'How you would like to make your payment.' },
    } satisfies Record<string, TargetTexts>,
    reference: 'Reference:',
    loadingAccount: 'Loading your account details…',
    accountUnreachable: 'Your account details could not be loaded.',
    accountFailed: 'Your account details are not available right now. Please try again later.',
    yourAccount: 'Your account',
    amountDue: 'Amount due',
    scheduledPayment: 'Scheduled payment',
    downPayment: 'Down payment',
    schedule: 'Schedule',
    signedInAs: 'Signed in as',
    you: 'You',
    sessionEnds: 'Session ends',
    soonerAfter: (minutes: number) => `(sooner after ${minutes} minutes without activity)`,
  },
} as const;

/** The paths below `/c/` of the pages the target codes lead to. */
export type TargetPath = keyof typeof consumerMessages.portal.targets;
