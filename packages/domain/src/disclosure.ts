/** The line every communication of a debt collector carries (12 CFR 1006.18(e)), in each language. */
export const debtCollectorDisclosure = {
  en: 'This is a communication from a debt collector.',
  es: 'Esta es una comunicación de un cobrador de deudas.',
} as const;
