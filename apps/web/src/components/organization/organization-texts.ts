import { debtCollectorDisclosure } from '@entry/domain';

/** How the organization's pages name it and the ways to reach it, in English. */
export const organizationTexts = {
  contactOf: (name: string) => `Contact ${name}`,
  contact: { phone: 'Phone', email: 'Email', hours: 'Hours', website: 'Website' },
  debtCollector: debtCollectorDisclosure.en,
};
