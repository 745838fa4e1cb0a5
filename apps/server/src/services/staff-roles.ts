import type { StaffKind } from '../db/schema.ts';

/** The roleId in the access token of each staff kind (every full token has one). */
export const staffRoleIds: Record<StaffKind, number> = { admin: 1, customer: 2 };
