/** The privacy page in plain words; `who` is the organization's name, or `theOrganization`. */
export const privacyTexts = {
  title: 'Privacy',
  theOrganization: 'the organization that wrote to you',
  intro: (who: string) =>
    `This service lets you reach your account with ${who}. It keeps as little about you as it can, and only to sign you in safely.`,
  typedTitle: 'What you type',
  typed: (who: string) =>
    `The answers you give to confirm who you are (the last 4 digits of your Social Security number, your ZIP code or your date of birth) are checked against the records ${who} holds and are not stored. Passwords of staff accounts are stored only in a form that cannot be turned back into the password.`,
  browserTitle: 'What your browser keeps',
  browser:
    'While you are signed in, this browser tab keeps your sign-in, and a cookie lets the service renew it. Both end when you sign out, after a while without activity, or when you close the tab. There are no advertising or tracking cookies and no analytics.',
  recordsTitle: 'What the service records',
  records:
    'To protect your account, the service records sign-ins, failed attempts and the opening of links, with the time and the network address they came from. It sends e-mail only to help you sign in, such as one-time codes.',
  questionsTitle: 'Questions about your account',
  questions: (who: string) =>
    `Your account and the information about it belong to ${who}; ask them about it.`,
};
