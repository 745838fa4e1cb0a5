import type { StaffKind } from '@entry/domain';
import { roleIdByScope } from '@entry/domain';
import { staffUsers } from '../../src/db/schema.ts';
import { hashPassword } from '../../src/services/passwords.ts';
import type { TestServer } from './server.ts';

/**
 * A staff user of the test's own, written straight to the database with `password` (no first
 * password link to follow); a customer user belongs to the demo tenant.
 */
export async function insertStaffUser(
  server: Pick<TestServer, 'ctx' | 'clock'>,
  kind: StaffKind,
  username: string,
  password: string,
) {
  const [user] = await server.ctx.db
    .insert(staffUsers)
    .values({
      kind,
      tenantId: kind === 'customer' ? 1001 : null,
      username,
      email: `${username}@example.com`,
      displayName: username,
      roleId: roleIdByScope[kind],
      passwordHash: await hashPassword(password),
      passwordChangedAt: server.clock.now(),
    })
    .returning();
  if (user === undefined) throw new Error('no user inserted');
  return user;
}
