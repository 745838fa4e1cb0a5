/** The languages of the consumer pages and mail. */
export const languages = ['en', 'es'] as const;

export type Language = (typeof languages)[number];
