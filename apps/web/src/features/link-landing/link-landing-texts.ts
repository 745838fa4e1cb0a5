/** The link landing's own words, while a link from a letter or an e-mail is checked. */
export const linkLandingTexts = {
  opening: 'Opening your link',
  checking: 'Checking your link, one moment…',
  notOpenedYet: 'Your link could not be opened yet',
  stillWorks: 'Your link has not been checked yet, and it still works.',
};
