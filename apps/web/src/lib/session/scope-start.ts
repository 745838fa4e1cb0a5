import type { Scope } from '@entry/domain';
import { paths } from '../../config/paths.ts';

/** Where a person of each scope starts, and returns when a session ends (DESIGN.md section 6). */
export function scopeStartPath(scope: Scope): string {
  switch (scope) {
    case 'admin':
      return paths.adminPortal.signIn.href();
    case 'customer':
      return paths.customerPortal.signIn.href();
    case 'consumer':
      return paths.consumerPortal.verifyIdentity.href();
  }
}
