import { createTenant, listTenants } from '../services/tenants.ts';
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
  summary: 'Create a tenant (an organisation with its own subdomain).',
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
            createdAt: tenant.createdAt.toISOString(),
          })),
        ),
      );
      return;
    }
    const rows = [
      ['customerId', 'subdomain', 'mfaRequired', 'maxPasswordAgeDays', 'name'],
      ...tenants.map((tenant) => [
        String(tenant.customerId),
        tenant.subdomain,
        String(tenant.settings.mfaRequired),
        tenant.settings.maxPasswordAgeDays === null ? '-' : String(tenant.settings.maxPasswordAgeDays),
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

export const tenantCommands: OperatorCommand[] = [tenantCreate, tenantList];
