import { rotateSigningKey } from '../services/keys.ts';
import { type OperatorCommand, writeLine } from './operator-command.ts';

const keysRotate: OperatorCommand = {
  family: 'keys',
  name: 'rotate',
  summary: 'Add a new signing key; the old public keys stay in the JWKS until their tokens have expired.',
  options: {},
  async run(_options, ctx) {
    const { kid, retired } = await rotateSigningKey(ctx.db, ctx.clock.now());
    await ctx.audit.record({
      event: 'operator.keys.rotate',
      outcome: 'success',
      actor: ctx.actor,
      detail: { kid, retired },
    });
    writeLine(ctx.stdout, `New signing key ${kid}.`);
    if (retired.length > 0) {
      writeLine(
        ctx.stdout,
        `Retired ${retired.join(', ')}: still published in the JWKS for ${ctx.config.accessTokenMinutes} minutes.`,
      );
    }
    writeLine(ctx.stdout, 'Restart the running instances (one at a time) so they sign with the new key.');
  },
};

export const keysCommands: OperatorCommand[] = [keysRotate];
