/** A value made once for each locale: pages format on every render, and an Intl object is dear to make. */
function perLocale<T>(make: (locale: string) => T): (locale: string) => T {
  const made = new Map<string, T>();
  return (locale) => {
    let value = made.get(locale);
    if (value === undefined) {
      value = make(locale);
      made.set(locale, value);
    }
    return value;
  };
}

/** Dollars and cents: "$1,250.75". */
export const moneyFormat = perLocale(
  (locale) => new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' }),
);

/** A clock time: "3:45 PM", "3:45 p. m.". */
export const clockTimeFormat = perLocale(
  (locale) => new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' }),
);

/** A short date without the year: "Nov 28". */
export const monthDayFormat = perLocale(
  (locale) => new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric' }),
);

/** The twelve months' names, January first. */
export const monthNames = perLocale((locale) => {
  const format = new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' });
  return Array.from({ length: 12 }, (_, index) => format.format(Date.UTC(2000, index, 1)));
});
