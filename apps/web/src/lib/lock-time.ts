const clockTime = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit' });
const monthDay = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' });

function dayNumber(date: Date): number {
  return Math.floor(new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime() / 86_400_000);
}

/**
 * When a lock ends, as a person reads it in their own time zone: "3:45 PM" today, "3:45 PM
 * tomorrow", or "3:45 PM on Nov 28". A lock lasts a day at most, so no year is needed.
 */
export function lockEndInWords(until: Date, now: Date = new Date()): string {
  const time = clockTime.format(until);
  const days = Math.round(dayNumber(until) - dayNumber(now));
  if (days <= 0) return time;
  if (days === 1) return `${time} tomorrow`;
  return `${time} on ${monthDay.format(until)}`;
}
