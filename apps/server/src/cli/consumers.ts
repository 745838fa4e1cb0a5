import { createReadStream } from 'node:fs';
import { importConsumersAudited } from '../services/consumer-import.ts';
import { tenantBySubdomain } from '../services/tenants.ts';
import { openInputFile } from './files.ts';
import { type OperatorCommand, requiredOption } from './operator-command.ts';

const consumersImport: OperatorCommand = {
  family: 'consumers',
  name: 'import',
  summary: "Import or update a tenant's consumers from CSV, all or nothing.",
  options: {
    tenant: { value: '<subdomain>', required: true, description: 'the tenant the consumers belong to' },
    file: {
      value: '<file.csv>',
      required: true,
      description: 'header consumerId,name,email,last4Ssn,postalCode,dateOfBirth (YYYY-MM-DD)',
    },
  },
  async run(options, ctx) {
    const tenant = await tenantBySubdomain(ctx.db, requiredOption(options, 'tenant'));
    const path = requiredOption(options, 'file');
    await openInputFile(path);
    const result = await importConsumersAudited(ctx, {
      tenantId: tenant.customerId,
      file: createReadStream(path),
      author: { actor: ctx.actor, ip: null },
    });
    ctx.report(
      `Imported ${result.rows} consumers into ${tenant.subdomain}: ${result.created} new, ${result.updated} updated.`,
      { tenant: tenant.subdomain, ...result },
    );
  },
};

export const consumersCommands: OperatorCommand[] = [consumersImport];
