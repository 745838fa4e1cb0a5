/** The consumer pages' help (our own texts; the spec has none): each topic's sections, a heading and its paragraphs. */
export const helpTexts = {
  consumer: [
    {
      heading: 'Why we ask who you are',
      paragraphs: [
        'The link in your letter is personal. Before it opens your account, we may ask for the last four digits of your Social Security number, your ZIP code or your date of birth, then send a code to your e-mail address. We use your answers only to check that the link is yours.',
        'After several wrong answers, checking is locked for a while to protect your account.',
      ],
    },
    {
      heading: 'Keeping your account safe',
      paragraphs: [
        'On a shared phone or computer, choose Sign out when you are done. You are also signed out after 15 minutes without activity. Never share your link with anyone else.',
        'If your link has expired, contact the organization that wrote to you and ask for a new one.',
      ],
    },
  ],
  code: [
    {
      heading: 'Your code',
      paragraphs: [
        'We send a 6-digit code to the e-mail address the organization has on file for you. It works for 10 minutes, and only the newest code works.',
        'No mail after a few minutes? Check your spam or junk folder, then ask for a new code. You can ask once a minute.',
        'If you no longer use that e-mail address, contact the organization that wrote to you.',
      ],
    },
  ],
  preferences: [
    {
      heading: 'Your email preferences',
      paragraphs: [
        "Opening the link from an e-mail unsubscribes your address from the organization's e-mails about your account. You can subscribe again here at any time; the link in every e-mail keeps working.",
        'E-mails you ask for yourself, such as a sign-in code or a password reset link, are always sent, even after you unsubscribe.',
      ],
    },
  ],
} as const;
