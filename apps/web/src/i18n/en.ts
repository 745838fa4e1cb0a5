import { helpTexts } from '../components/auth-layout/help-texts.ts';
import { layoutTexts } from '../components/auth-layout/layout-texts.ts';
import { organizationTexts } from '../components/organization/organization-texts.ts';
import { consumerMessages } from '../features/consumer-portal/consumer-messages.ts';
import { preferencesTexts } from '../features/email-preferences/email-preferences-texts.ts';
import { linkLandingTexts } from '../features/link-landing/link-landing-texts.ts';
import { privacyTexts } from '../features/privacy/privacy-texts.ts';
import { noticeTexts } from '../lib/notice-texts.ts';
import { refusalMessages } from '../lib/session/refusal-messages.ts';
import { sessionMessages } from '../lib/session/session-messages.ts';

/**
 * The English catalogue: the sections each page loads with its own chunk, gathered. Pages import
 * their section, never this, so a page loads only its own texts (the entry budget, bench/RESULTS.md).
 */
export const english = {
  layout: layoutTexts,
  organization: organizationTexts,
  help: helpTexts,
  notices: noticeTexts,
  refusals: refusalMessages,
  session: sessionMessages,
  consumer: consumerMessages,
  linkLanding: linkLandingTexts,
  preferences: preferencesTexts,
  privacy: privacyTexts,
};
