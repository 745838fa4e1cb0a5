import type { Language } from './languages.ts';

/**
 * The line that marks a later communication as coming from a debt collector (12 CFR 1006.18(e)):
 * every consumer mail and page footer of an organization that collects debts carries it.
 */
export const debtCollectorDisclosure: Readonly<Record<Language, string>> = {
  en: 'This is a communication from a debt collector.',
  es: 'Esta es una comunicación de un cobrador de deudas.',
};
