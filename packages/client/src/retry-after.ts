/** The seconds to wait that a `Retry-After` value asks for (RFC 9110 section 10.2.3); undefined for junk. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  const at = parseHttpDate(text, nowMs);
  return at === undefined ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const month = `(${monthNames.join('|')})`;
const time = '(\\d{2}):(\\d{2}):(\\d{2})';
const imfFixdate = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${month} (\\d{4}) ${time} GMT$`);
const rfc850Date = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${month}-(\\d{2}) ${time} GMT$`,
);
const asctimeDate = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${month} ( \\d|\\d{2}) ${time} (\\d{4})$`);

/** The three HTTP-date forms a recipient must accept (RFC 9110 section 5.6.7), as epoch milliseconds. */
function parseHttpDate(text: string, nowMs: number): number | undefined {
  const fixdate = imfFixdate.exec(text);
  if (fixdate) {
    const [, day, monthName, year, hour, minute, second] = fixdate;
    return utcMs(Number(year), monthName, day, hour, minute, second);
  }
  const rfc850 = rfc850Date.exec(text);
  if (rfc850) {
    const [, day, monthName, shortYear, hour, minute, second] = rfc850;
    return utcMs(fullYearOf(Number(shortYear), nowMs), monthName, day, hour, minute, second);
  }
  const asctime = asctimeDate.exec(text);
  if (asctime) {
    const [, monthName, day, hour, minute, second, year] = asctime;
    return utcMs(Number(year), monthName, day, hour, minute, second);
  }
  return undefined;
}

/** A two-digit year more than fifty years ahead is the latest past year ending in those digits. */
function fullYearOf(shortYear: number, nowMs: number): number {
  const thisYear = new Date(nowMs).getUTCFullYear();
  const candidate = thisYear - (thisYear % 100) + shortYear;
  return candidate > thisYear + 50 ? candidate - 100 : candidate;
}

function utcMs(
  year: number,
  monthName: string | undefined,
  day: string | undefined,
  hour: string | undefined,
  minute: string | undefined,
  second: string | undefined,
): number | undefined {
  const monthIndex = monthNames.indexOf(monthName ?? '');
  const [d, h, m, s] = [day, hour, minute, second].map(Number);
  if (d === undefined || h === undefined || m === undefined || s === undefined) return undefined;
  // The grammar allows a leap second; it counts as the last second of its minute.
  if (h > 23 || m > 59 || s > 60) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, d);
  date.setUTCHours(h, m, Math.min(s, 59));
  // A day past the month's end (31 Feb) would roll over into the next month: it does not exist.
  if (date.getUTCMonth() !== monthIndex || date.getUTCDate() !== d) return undefined;
  return date.getTime();
}
