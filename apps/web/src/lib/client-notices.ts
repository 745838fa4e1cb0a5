import { textsOf } from '../i18n/language.ts';
import { noticeTexts } from './notice-texts.ts';
import { notify } from './notifications.ts';

type Notice = keyof typeof noticeTexts;

/**
 * Shows a notice of the API client in the page's language: the client says the spec's English
 * words. A module apart from `notify`, which the entry page loads, so the page loads this only
 * with the API client.
 */
export function notifyInLanguage(text: string): void {
  const notice = (Object.keys(noticeTexts) as Notice[]).find((name) => noticeTexts[name] === text);
  notify(notice === undefined ? text : textsOf('notices', noticeTexts)[notice]);
}
