import { describe, expect, it } from 'vitest';
import {
  callCheckMessages,
  emailStatusSentence,
  pageTexts,
  parameterMustBeDefinedMessage,
  scopeDoesNotImplementMessage,
  subdomainFieldMessages,
  unrecognizedScopeMessage,
} from './messages.ts';

describe('message texts of the specification, word for word', () => {
  it.each([
    [subdomainFieldMessages.required, 'This field is required.'],
    [subdomainFieldMessages.length, 'This value must be between 3 and 63 characters long.'],
    [
      subdomainFieldMessages.invalidSubdomain,
      'This value must be a valid subdomain with no upper case letters.',
    ],
    [subdomainFieldMessages.notFound, 'Invalid domain. Please check your credentials and try again.'],
    [callCheckMessages.tokenMustBeDefined, "The parameter 'token' must be defined."],
    [callCheckMessages.unsubscribedCannotBeNull, "The parameter 'unsubscribed' cannot be null."],
    [parameterMustBeDefinedMessage('subdomain'), "The parameter 'subdomain' must be defined."],
    [parameterMustBeDefinedMessage('customerId'), "The parameter 'customerId' must be defined."],
    [scopeDoesNotImplementMessage('admin', 'signInWithToken'), 'admin does not implement signInWithToken'],
    [unrecognizedScopeMessage('dash'), 'dash is not a recognized scope.'],
    [pageTexts.domainPicker.title, 'Enter Domain'],
    [
      pageTexts.domainPicker.letterHint('localhost'),
      'If you received a letter in the mail, that letter should include the domain (e.g. sender.localhost).',
    ],
    [
      pageTexts.domainPicker.partnerHint,
      'If you are associated with a partner of the provider, you will need to contact that partner to get the proper domain.',
    ],
    [pageTexts.emailPreferences.title, 'Email Preferences'],
    [
      emailStatusSentence(pageTexts.emailPreferences.subscribedStatus, 'a@b.example'),
      'Your email a@b.example is currently receiving emails.',
    ],
    [pageTexts.emailPreferences.subscribedHint, 'To stop receiving emails click unsubscribe below.'],
    [
      emailStatusSentence(pageTexts.emailPreferences.unsubscribedStatus, 'a@b.example'),
      'Your email a@b.example has been unsubscribed.',
    ],
    [pageTexts.emailPreferences.unsubscribedHint, 'To start receiving emails click subscribe below.'],
    [pageTexts.helpPanel.title, 'Need help?'],
    [pageTexts.updateToast.message, 'Update Available'],
    [pageTexts.updateToast.action, 'Refresh'],
  ])('%j', (actual, expected) => {
    expect(actual).toBe(expected);
  });
});
