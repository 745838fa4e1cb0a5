/**
 * The message texts the specification gives, word for word. Each text lives here once; every other
 * package imports it (guarded by `messages.test.ts`).
 */

/** The subdomain field of the domain picker, in the order they are checked. */
export const subdomainFieldMessages = {
  required: 'This field is required.',
  length: 'This value must be between 3 and 63 characters long.',
  invalidSubdomain: 'This value must be a valid subdomain with no upper case letters.',
  notFound: 'Invalid domain. Please check your credentials and try again.',
} as const;

/** The check a client call makes before sending when a path parameter (subdomain, customerId, token) is missing. */
export function parameterMustBeDefinedMessage(name: string): string {
  return `The parameter '${name}' must be defined.`;
}

/** The client-side call checks' messages. */
export const callCheckMessages = {
  tokenMustBeDefined: parameterMustBeDefinedMessage('token'),
  unsubscribedCannotBeNull: "The parameter 'unsubscribed' cannot be null.",
} as const;

/** An action that a scope does not support. */
export function scopeDoesNotImplementMessage(scope: string, action: string): string {
  return `${scope} does not implement ${action}`;
}

/** An unknown scope. */
export function unrecognizedScopeMessage(scope: string): string {
  return `${scope} is not a recognized scope.`;
}

/** A text with the e-mail address in the middle, so a page can show the address in bold. */
export interface EmailStatusText {
  beforeEmail: string;
  afterEmail: string;
}

const yourEmail = 'Your email ';

/** The screens' texts. */
export const pageTexts = {
  domainPicker: {
    title: 'Enter Domain',
    letterHint: (host: string): string =>
      `If you received a letter in the mail, that letter should include the domain (e.g. sender.${host}).`,
    partnerHint:
      'If you are associated with a partner of the provider, you will need to contact that partner to get the proper domain.',
  },
  emailPreferences: {
    title: 'Email Preferences',
    subscribedStatus: { beforeEmail: yourEmail, afterEmail: ' is currently receiving emails.' },
    subscribedHint: 'To stop receiving emails click unsubscribe below.',
    unsubscribedStatus: { beforeEmail: yourEmail, afterEmail: ' has been unsubscribed.' },
    unsubscribedHint: 'To start receiving emails click subscribe below.',
  },
  helpPanel: {
    /** Both the header link and the panel's title. */
    title: 'Need help?',
  },
  updateToast: {
    message: 'Update Available',
    action: 'Refresh',
  },
} as const satisfies Record<string, Record<string, string | EmailStatusText | ((host: string) => string)>>;

/** The whole sentence of an e-mail status text, e.g. for an accessible name or a plain-text view. */
export function emailStatusSentence(text: EmailStatusText, email: string): string {
  return `${text.beforeEmail}${email}${text.afterEmail}`;
}
