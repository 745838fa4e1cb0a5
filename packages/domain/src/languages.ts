import { z } from './zod.ts';

/** The languages consumers read pages and mail in; English first, the default. */
export const languages = ['en', 'es'] as const;
export const languageSchema = z.enum(languages);
export type Language = z.infer<typeof languageSchema>;
