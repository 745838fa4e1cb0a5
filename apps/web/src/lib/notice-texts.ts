import { errorMessages } from '@entry/domain';
import { textsOf } from '../i18n/language.ts';
import { notify } from './notifications.ts';

/** The spec's messages that the snack-bar shows (spec section 8). */
export const noticeTexts = {
  connectionLost: errorMessages.connectionLost,
  serverError: errorMessages.serverError,
  unknownError: errorMessages.unknownError,
};

type Notice = keyof typeof noticeTexts;

/** Shows a notice of the API client in the page's language: the client says the spec's English words. */
export function notifyInLanguage(text: string): void {
  const notice = (Object.keys(noticeTexts) as Notice[]).find((name) => noticeTexts[name] === text);
  notify(notice === undefined ? text : textsOf('notices', noticeTexts)[notice]);
}
