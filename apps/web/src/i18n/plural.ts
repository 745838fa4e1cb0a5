/** The form of a count's words that the language's plural rules pick: "1 try left", "3 tries left". */
export function plural(locale: string, count: number, one: string, other: string): string {
  return new Intl.PluralRules(locale).select(count) === 'one' ? one : other;
}
