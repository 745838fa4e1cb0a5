import { readFile } from 'node:fs/promises';
import {
  languageSchema,
  languages,
  staffSecondFactorPolicies,
  staffSecondFactorPolicySchema,
} from '@entry/domain';
import { maxLogoBytes } from '../services/tenant-logo.ts';
import { createTenant, listTenants, updateTenant } from '../services/tenants.ts';
import { CommandRefusal } from './errors.ts';
import { openInputFile } from './files.ts';
import {
  booleanOption,
  integerOption,
  type OperatorCommand,
  requiredOption,
  writeLine,
} from './operator-command.ts';

const tenantCreate: OperatorCommand = {
  family: 'tenant',
  name: 'create',
  summary: 'Create a tenant (an organization with its own subdomain).',
  options: {
    subdomain: { value: '<subdomain>', required: true, description: 'lowercase, 3 to 63 characters' },
    name: { value: '<name>', required: true, description: 'the name consumers see' },
    'customer-id': { value: '<n>', description: 'the customer id; default: the next free one from 1001' },
    'mfa-required': {
      value: 'true|false',
      choices: ['true', 'false'],
      description: 'one-time codes after consumer verification (default true)',
    },
    'max-password-age-days': {
      value: '<n>',
      description: 'staff passwords expire after n days (default never)',
    },
  },
  async run(options, ctx) {
    const tenant = await createTenant(ctx.db, ctx.config, ctx.clock, {
      subdomain: requiredOption(options, 'subdomain'),
      name: requiredOption(options, 'name'),
      customerId: integerOption(options, 'customer-id'),
      mfaRequired: booleanOption(options, 'mfa-required'),
      maxPasswordAgeDays: integerOption(options, 'max-password-age-days') ?? null,
    });
    await ctx.audit.record({
      event: 'operator.tenant.create',
      outcome: 'success',
      actor: ctx.actor,
      tenantId: tenant.customerId,
      detail: { subdomain: tenant.subdomain, settings: tenant.settings },
    });
    ctx.report(`Created tenant ${tenant.subdomain} (customer id ${tenant.customerId}): ${tenant.name}`, {
      customerId: tenant.customerId,
      subdomain: tenant.subdomain,
      name: tenant.name,
      settings: tenant.settings,
    });
  },
};

/** `--logo none` removes the logo; any other value names the file. */
async function logoOption(value: string | undefined): Promise<Buffer | null | undefined> {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  await openInputFile(value);
  return readFile(value);
}

const tenantUpdate: OperatorCommand = {
  family: 'tenant',
  name: 'update',
  summary:
    "Change a tenant's name, contact details or logo, as consumers see them, its consumers' default language, whether it is a debt collector, or whether its customer users need a second factor.",
  options: {
    subdomain: { value: '<subdomain>', required: true, description: 'the tenant to change' },
    name: { value: '<name>', description: 'the name consumers see' },
    phone: { value: '<phone>', description: 'a US phone number, e.g. "(800) 555-0199"; "" removes it' },
    email: { value: '<address>', description: 'the e-mail address consumers may write to; "" removes it' },
    hours: {
      value: '<text>',
      description: 'when someone answers, e.g. "Mon-Fri 8 AM-6 PM ET"; "" removes it',
    },
    website: { value: '<url>', description: 'an https:// or http:// address; "" removes it' },
    logo: {
      value: '<file.png|file.svg|none>',
      description: `a PNG or SVG of at most ${maxLogoBytes / 1024} KB (an SVG that only draws); none removes it`,
    },
    'staff-second-factor': {
      value: 'off|optional|required',
      choices: staffSecondFactorPolicies,
      description: 'whether its customer users are asked for a second factor (default optional)',
    },
    'default-language': {
      value: 'en|es',
      choices: languages,
      description: 'the language of consumer pages and mail when the consumer has none (default en)',
    },
    'debt-collector': {
      value: 'true|false',
      choices: ['true', 'false'],
      description: 'consumer mail and pages say they come from a debt collector (default false)',
    },
    'mfa-required': {
      value: 'true|false',
      choices: ['true', 'false'],
      description: 'one-time codes after consumer verification',
    },
    'max-password-age-days': {
      value: '<n|never>',
      description: 'staff passwords expire after n days; never: they do not expire',
    },
  },
  async run(options, ctx) {
    const { tenant, changed } = await updateTenant(ctx.db, ctx.clock, requiredOption(options, 'subdomain'), {
      name: options.name,
      phone: options.phone,
      email: options.email,
      hours: options.hours,
      website: options.website,
      logo: await logoOption(options.logo),
      staffSecondFactor: staffSecondFactorPolicySchema.optional().parse(options['staff-second-factor']),
      defaultLanguage: languageSchema.optional().parse(options['default-language']),
      debtCollector: booleanOption(options, 'debt-collector'),
      mfaRequired: booleanOption(options, 'mfa-required'),
      maxPasswordAgeDays:
        options['max-password-age-days'] === 'never' ? null : integerOption(options, 'max-password-age-days'),
    });
    if (changed.length === 0) throw new CommandRefusal('nothingToUpdate');
    await ctx.audit.record({
      event: 'operator.tenant.update',
      outcome: 'success',
      actor: ctx.actor,
      tenantId: tenant.customerId,
      detail: { subdomain: tenant.subdomain, changed },
    });
    ctx.report(`Updated tenant ${tenant.subdomain} (${changed.join(', ')}): ${tenant.name}`, {
      customerId: tenant.customerId,
      subdomain: tenant.subdomain,
      name: tenant.name,
      changed,
    });
  },
};

const tenantList: OperatorCommand = {
  family: 'tenant',
  name: 'list',
  summary: 'List the tenants.',
  options: {
    format: { value: 'table|json', choices: ['table', 'json'], description: 'default table' },
  },
  async run(options, ctx) {
    const tenants = await listTenants(ctx.db);
    if (options.format === 'json') {
      writeLine(
        ctx.stdout,
        JSON.stringify(
          tenants.map((tenant) => ({
            customerId: tenant.customerId,
            subdomain: tenant.subdomain,
            name: tenant.name,
            mfaRequired: tenant.settings.mfaRequired,
            maxPasswordAgeDays: tenant.settings.maxPasswordAgeDays,
            staffSecondFactor: tenant.settings.staffSecondFactor ?? 'optional',
            defaultLanguage: tenant.settings.defaultLanguage ?? 'en',
            debtCollector: tenant.settings.debtCollector === true,
            contact: tenant.contact,
            hasLogo: tenant.hasLogo,
            createdAt: tenant.createdAt.toISOString(),
          })),
        ),
      );
      return;
    }
    const rows = [
      [
        'customerId',
        'subdomain',
        'mfaRequired',
        'maxPasswordAgeDays',
        'defaultLanguage',
        'debtCollector',
        'name',
      ],
      ...tenants.map((tenant) => [
        String(tenant.customerId),
        tenant.subdomain,
        String(tenant.settings.mfaRequired),
        tenant.settings.maxPasswordAgeDays === null ? '-' : String(tenant.settings.maxPasswordAgeDays),
        tenant.settings.defaultLanguage ?? 'en',
        String(tenant.settings.debtCollector === true),
        tenant.name,
      ]),
    ];
    const widths =
      rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
    for (const row of rows) {
      writeLine(
        ctx.stdout,
        row
          .map((cell, column) => cell.padEnd(widths[column] ?? 0))
          .join('  ')
          .trimEnd(),
      );
    }
  },
};

export const tenantCommands: OperatorCommand[] = [tenantCreate, tenantUpdate, tenantList];
