import { rotateSigningKey, signingKeyReloadMs } from '../services/keys.ts';
import type { OperatorCommand } from './operator-command.ts';

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
    const reloadSeconds = signingKeyReloadMs / 1000;
    ctx.report(
      [
        `New signing key ${kid}.`,
        ...(retired.length === 0
          ? []
          : [
              `Retired ${retired.join(', ')}: still published in the JWKS for ${ctx.config.accessTokenMinutes} minutes.`,
            ]),
        `Running instances sign with it within ${reloadSeconds} seconds, when they next read the key table; no restart is needed.`,
      ],
      { kid, retired, takesEffectWithinSeconds: reloadSeconds },
    );
  },
};

export const keysCommands: OperatorCommand[] = [keysRotate];
