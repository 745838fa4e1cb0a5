import { type StaffKind, staffKinds } from '@entry/domain';
import { listFactorsOfUser, resetFactorsOfUser } from '../services/second-factor-resets.ts';
import {
  createStaffUser,
  disableStaffUser,
  enableStaffUser,
  initialPasswordLinkHours,
  normaliseUsername,
  type StaffPlacement,
  setStaffUserManager,
  unlockStaffUser,
} from '../services/staff-users.ts';
import { CommandRefusal } from './errors.ts';
import {
  booleanOption,
  type OperatorCommand,
  type OptionValues,
  requiredOption,
} from './operator-command.ts';

const kindOption = {
  value: 'admin|customer',
  required: true,
  choices: staffKinds,
  description: "admin (provider staff, /a) or customer (a tenant's staff, /d)",
} as const;
const usernameOption = { value: '<username>', required: true, description: 'the sign-in name' } as const;

const kindOf = (options: OptionValues) => requiredOption(options, 'kind') as StaffKind;

/** The kind's tenant: named with --tenant for a customer user, never for an admin. */
function placementOf(options: OptionValues): StaffPlacement {
  const kind = kindOf(options);
  if (kind === 'admin' && options.tenant !== undefined) throw new CommandRefusal('tenantForbidden');
  if (kind === 'admin') return { kind };
  if (options.tenant === undefined) throw new CommandRefusal('tenantRequired');
  return { kind, tenant: options.tenant };
}

const userCreate: OperatorCommand = {
  family: 'user',
  name: 'create',
  summary: 'Create an admin or customer user; prints a one-use link that sets the first password.',
  options: {
    kind: kindOption,
    tenant: { value: '<subdomain>', description: 'the tenant of a customer user' },
    username: usernameOption,
    email: { value: '<address>', required: true, description: 'where password resets are mailed' },
    name: { value: '<display name>', description: 'default: the username' },
    manager: {
      value: 'true|false',
      choices: ['true', 'false'],
      description: "a customer user who manages their organization's staff in the console (default false)",
    },
  },
  async run(options, ctx) {
    const user = await createStaffUser(ctx.db, ctx.config, ctx.clock, {
      ...placementOf(options),
      username: requiredOption(options, 'username'),
      email: requiredOption(options, 'email'),
      displayName: options.name,
      manager: booleanOption(options, 'manager'),
    });
    await ctx.audit.record({
      event: `operator.${user.kind}.create`,
      outcome: 'success',
      actor: ctx.actor,
      tenantId: user.tenantId,
      detail: { userId: user.id, username: user.username, manager: user.manager },
    });
    ctx.report(
      [
        `Created ${user.kind} user ${user.username}.`,
        `Send this one-use link to the user to set the first password (valid ${initialPasswordLinkHours} hours, shown only now):`,
        user.setPasswordUrl,
      ],
      {
        kind: user.kind,
        username: user.username,
        setPasswordUrl: user.setPasswordUrl,
        validHours: initialPasswordLinkHours,
      },
    );
  },
};

function accountCommand(
  name: string,
  summary: string,
  change: (ctx: Parameters<OperatorCommand['run']>[1], kind: StaffKind, username: string) => Promise<number>,
  done: string,
): OperatorCommand {
  return {
    family: 'user',
    name,
    summary,
    options: { kind: kindOption, username: usernameOption },
    async run(options, ctx) {
      const kind = kindOf(options);
      const username = requiredOption(options, 'username');
      const userId = await change(ctx, kind, username);
      await ctx.audit.record({
        event: `operator.${kind}.${name}`,
        outcome: 'success',
        actor: ctx.actor,
        detail: { userId },
      });
      const normalised = normaliseUsername(username);
      ctx.report(`${kind} user ${normalised} ${done}.`, { kind, username: normalised, done });
    },
  };
}

const userFactors: OperatorCommand = {
  family: 'user',
  name: 'factors',
  summary: "List a user's second factors: authenticator app, passkeys and recovery codes left.",
  options: { kind: kindOption, username: usernameOption },
  async run(options, ctx) {
    const listing = await listFactorsOfUser(ctx.db, kindOf(options), requiredOption(options, 'username'));
    ctx.report(
      [
        `${listing.kind} user ${listing.username} (second factor ${listing.policy}):`,
        `  authenticator app: ${listing.authenticatorApp}`,
        `  passkeys: ${listing.passkeys.length === 0 ? 'none' : listing.passkeys.map((passkey) => passkey.name).join(', ')}`,
        `  recovery codes left: ${listing.recoveryCodesLeft}`,
      ],
      { ...listing },
    );
  },
};

const userFactorsReset: OperatorCommand = {
  family: 'user',
  name: 'factors-reset',
  summary:
    "Remove a user's second factors (a lost phone and codes): their sessions end, they set up a factor again at the next sign-in, and they are mailed.",
  options: { kind: kindOption, username: usernameOption },
  async run(options, ctx) {
    const kind = kindOf(options);
    const username = normaliseUsername(requiredOption(options, 'username'));
    const reset = await resetFactorsOfUser(ctx, kind, username, ctx.actor);
    ctx.report(
      `Removed the second factors of ${kind} user ${username} (authenticator app: ${reset.totp ? 'yes' : 'no'}, passkeys: ${reset.passkeys}, recovery codes: ${reset.recoveryCodes}); ${reset.endedSessionIds.length} sessions ended.`,
      {
        kind,
        username,
        totp: reset.totp,
        passkeys: reset.passkeys,
        recoveryCodes: reset.recoveryCodes,
        endedSessions: reset.endedSessionIds.length,
      },
    );
  },
};

const userUpdate: OperatorCommand = {
  family: 'user',
  name: 'update',
  summary:
    "Give or take a customer user's manager role (the console's staff pages of their organization, at /d/console).",
  options: {
    kind: kindOption,
    username: usernameOption,
    manager: {
      value: 'true|false',
      required: true,
      choices: ['true', 'false'],
      description: 'the manager role',
    },
  },
  async run(options, ctx) {
    const kind = kindOf(options);
    const manager = booleanOption(options, 'manager') === true;
    const user = await setStaffUserManager(ctx.db, kind, requiredOption(options, 'username'), manager);
    await ctx.audit.record({
      event: `operator.${kind}.update`,
      outcome: 'success',
      actor: ctx.actor,
      tenantId: user.tenantId,
      detail: { userId: user.id, manager },
    });
    ctx.report(`${kind} user ${user.username} is ${manager ? 'now' : 'no longer'} a manager.`, {
      kind,
      username: user.username,
      manager,
    });
  },
};

export const userCommands: OperatorCommand[] = [
  userCreate,
  userUpdate,
  accountCommand(
    'disable',
    'Disable a user: sign-in is refused and open sessions end.',
    (ctx, kind, username) => disableStaffUser(ctx, kind, username, ctx.actor),
    'disabled; its open sessions have ended',
  ),
  accountCommand(
    'enable',
    'Enable a disabled user again.',
    (ctx, kind, username) => enableStaffUser(ctx.db, kind, username),
    'enabled',
  ),
  accountCommand(
    'unlock',
    'Lift the lock after failed sign-ins.',
    (ctx, kind, username) => unlockStaffUser(ctx.db, kind, username),
    'unlocked',
  ),
  userFactors,
  userFactorsReset,
];
