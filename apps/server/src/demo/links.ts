import { appsOrigin, type Config, publicOrigin } from '../config.ts';
import { otpauthUri } from '../services/second-factor-secrets.ts';
import type { DemoData, DemoTokenKind } from './demo-file.ts';

const totpUriOf = (demo: DemoData) => otpauthUri(demo.admin.totpSecret, demo.admin.username);

const tokenLabels: Record<DemoTokenKind, string> = {
  direct: 'direct sign-in (no questions)',
  last4Ssn: 'asks for the last 4 SSN digits',
  postalCode: 'asks for the ZIP code',
  dateOfBirth: 'asks for the date of birth',
  none: 'asks for all three answers',
  expired: 'an expired link',
};

/** One clickable line per flow, for the console of `npm start` and `npm run demo`. */
export function demoLinks(config: Config, demo: DemoData): string {
  const tenantOrigin = publicOrigin(config, demo.tenant.subdomain);
  const { last4Ssn, postalCode, dateOfBirth } = demo.verification;
  const lines = [
    'Try the product:',
    `  Domain picker           ${publicOrigin(config)}/`,
    `  Tenant portal           ${tenantOrigin}/`,
    ...(Object.keys(tokenLabels) as DemoTokenKind[]).map(
      (kind) =>
        `  Consumer link           ${tenantOrigin}/${demo.identityTokens[kind]}  (${tokenLabels[kind]})`,
    ),
    `                          answers: last 4 SSN ${last4Ssn}, ZIP ${postalCode}, date of birth ${dateOfBirth}; codes are mailed to ${demo.consumerEmail}`,
    `  Consumer without a link ${tenantOrigin}/c/verify-identity  (${demo.withoutLink.name}: last 4 SSN ${demo.withoutLink.last4Ssn}, ZIP ${demo.withoutLink.postalCode}, date of birth ${demo.withoutLink.dateOfBirth}; always asks for the mailed code)`,
    `  Admin sign-in           ${appsOrigin(config)}/a/sign-in  (${demo.admin.username} / ${demo.admin.password})`,
    `                          authenticator app secret ${demo.admin.totpSecret} (add it to an app, or: ${totpUriOf(demo)})`,
    `  Customer sign-in        ${appsOrigin(config)}/d/sign-in  (${demo.customer.username} / ${demo.customer.password})`,
    `  Email preferences       ${tenantOrigin}/unsubscribe?token=${encodeURIComponent(demo.emailSubscription.token)}`,
    `  API reference           ${publicOrigin(config)}/api/docs  (OpenAPI: /api/docs/openapi.json)`,
  ];
  return `${lines.join('\n')}\n`;
}
