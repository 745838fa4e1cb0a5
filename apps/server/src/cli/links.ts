import { createReadStream } from 'node:fs';
import {
  defaultMailingName,
  issueLinks,
  recordLinksIssued,
  revokeMailingAudited,
} from '../services/mailings.ts';
import { tenantBySubdomain } from '../services/tenants.ts';
import { openInputFile } from './files.ts';
import { type OperatorCommand, requiredOption } from './operator-command.ts';

const linksIssue: OperatorCommand = {
  family: 'links',
  name: 'issue',
  summary: "Issue identity tokens for a mailing and write each consumer's letter links to a CSV.",
  options: {
    tenant: { value: '<subdomain>', required: true, description: 'the tenant of the consumers' },
    file: {
      value: '<in.csv>',
      required: true,
      description:
        'header consumerId,signInType,target,targetId,expiresAt,paymentAmount,schedulePaymentAmount,scheduleDownPayment,scheduleInterval',
    },
    out: { value: '<out.csv>', required: true, description: 'written only when every row is valid' },
    mailing: { value: '<name>', description: 'names the mailing for `links revoke`; default mailing-{time}' },
  },
  async run(options, ctx) {
    const tenant = await tenantBySubdomain(ctx.db, requiredOption(options, 'tenant'));
    const path = requiredOption(options, 'file');
    await openInputFile(path);
    const mailing = options.mailing ?? defaultMailingName(ctx.clock.now());
    const result = await issueLinks(ctx.db, {
      tenant,
      mailing,
      file: createReadStream(path),
      outPath: requiredOption(options, 'out'),
      config: ctx.config,
      clock: ctx.clock,
    });
    await recordLinksIssued(ctx.audit, tenant.customerId, result, { actor: ctx.actor, ip: null });
    ctx.report(`Issued ${result.issued} links for mailing ${result.mailing}; written to ${options.out}.`, {
      ...result,
      out: options.out,
    });
  },
};

const linksRevoke: OperatorCommand = {
  family: 'links',
  name: 'revoke',
  summary: 'Revoke every token of a mailing: its links stop working at once.',
  options: { mailing: { value: '<name>', required: true, description: 'the mailing name' } },
  async run(options, ctx) {
    const mailing = requiredOption(options, 'mailing');
    const { revoked } = await revokeMailingAudited(ctx, mailing, { actor: ctx.actor, ip: null });
    ctx.report(`Revoked ${revoked} tokens of mailing ${mailing}.`, { mailing, revoked });
  },
};

export const linksCommands: OperatorCommand[] = [linksIssue, linksRevoke];
