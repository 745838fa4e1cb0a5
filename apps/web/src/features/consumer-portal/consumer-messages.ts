/** "1 try left", "3 tries left": the count every refused answer or code states. */
const triesLeftCount = (count: number) => (count === 1 ? '1 try left' : `${count} tries left`);

/** Our own plain texts for the consumer's verification and code steps; the spec gives none. */
export const consumerMessages = {
  noMatch: 'These details do not match our records. Check them and try again.',
  /** Said after a refused answer, beside the refusal, while tries are left. */
  triesLeft: (count: number) => `${triesLeftCount(count)} before verification locks for a while.`,
  /** Said after a wrong code while tries are left: of the code, or of the codes before they lock. */
  codeTriesLeft: (count: number) => `${triesLeftCount(count)}.`,
  /** `who`: the organization's name, or `theOrganization` until it is known. */
  locked: (who: string) =>
    `For your security, verification is locked for a while after too many attempts. Please try again later, or contact ${who}.`,
  /** `time`: when the lock ends, in the person's time zone, e.g. "3:45 PM". */
  lockedUntil: (time: string, who: string) =>
    `For your security, verification is locked after too many attempts. Try again after ${time}, or contact ${who}.`,
  theOrganization: 'the organization that wrote to you',
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
    },
    mfaCode: {
      label: '6-digit code',
      required: 'Enter the 6-digit code from the mail.',
      invalid: 'The code has 6 digits.',
    },
  },
} as const;
