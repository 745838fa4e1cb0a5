import { layoutTexts } from '../../components/auth-layout/layout-texts.ts';
import { clockTimeFormat, monthDayFormat } from '../../i18n/formats.ts';
import { textsOf } from '../../i18n/language.ts';
import { consumerMessages } from './consumer-messages.ts';

function dayNumber(date: Date): number {
  return Math.floor(new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime() / 86_400_000);
}

/**
 * When a lock ends, as a person reads it in their own time zone and the page's language: "3:45 PM"
 * today, "3:45 PM tomorrow", or "3:45 PM on Nov 28". A lock lasts a day at most, so no year is needed.
 */
export function lockEndInWords(until: Date, now: Date = new Date()): string {
  const { locale } = textsOf('layout', layoutTexts);
  const texts = textsOf('consumer', consumerMessages);
  const time = clockTimeFormat(locale).format(until);
  const days = Math.round(dayNumber(until) - dayNumber(now));
  if (days <= 0) return time;
  if (days === 1) return texts.lockEndTomorrow(time);
  return texts.lockEndOn(time, monthDayFormat(locale).format(until));
}
