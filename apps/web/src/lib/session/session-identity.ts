import { type JwtPayload, type RoleId, roleIdOf } from '@entry/domain';

/** What a portal page shows about the person signed in, read from the access token's payload. */
export interface SessionIdentity {
  /** The staff user's display name; absent for consumers. */
  name: string | null;
  /** The admin who launched a customer session. */
  launchedBy: string | null;
  /** The identity token of the link a consumer came with. */
  identityToken: string | null;
  /** The customer (tenant) the session belongs to. */
  customerId: number | null;
  roleId: RoleId | null;
  /** The subject, e.g. `consumer:42`, for a person without a display name. */
  subject: string | null;
}

function objectOf(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function sessionIdentityOf(payload: JwtPayload | null): SessionIdentity {
  const user = objectOf(payload?.user);
  const tid = payload?.tid;
  return {
    name: textOf(user?.name),
    launchedBy: textOf(objectOf(payload?.launchedBy)?.name),
    identityToken: textOf(payload?.identityToken),
    customerId: typeof tid === 'number' ? tid : null,
    roleId: roleIdOf(payload),
    subject: textOf(payload?.sub),
  };
}
