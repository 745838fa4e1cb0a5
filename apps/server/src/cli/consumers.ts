import { createReadStream } from 'node:fs';
import { importConsumers } from '../services/consumer-import.ts';
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
    const result = await importConsumers(ctx.db, {
      tenantId: tenant.customerId,
      pepper: ctx.pepper,
      clock: ctx.clock,
      file: createReadStream(path),
    });
    await ctx.audit.record({
      event: 'operator.consumers.import',
      outcome: 'success',
      actor: ctx.actor,
      tenantId: tenant.customerId,
      detail: { ...result },
    });
    ctx.report(
      `Imported ${result.rows} consumers into ${tenant.subdomain}: ${result.created} new, ${result.updated} updated.`,
      { tenant: tenant.subdomain, ...result },
    );
  },
};

export const consumersCommands: OperatorCommand[] = [consumersImport];
