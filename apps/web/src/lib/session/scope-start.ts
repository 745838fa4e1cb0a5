import type { KeyValueStorage } from '@entry/client';
import type { Scope } from '@entry/domain';
import { paths } from '../../config/paths.ts';
import { consumerStartPath } from '../pending-verification.ts';

/**
 * Where a person of each scope starts, and returns when a session ends (docs/rules.md#web): a
 * consumer to the verification of the link this tab opened, when there is one.
 */
export function scopeStartPath(scope: Scope, storage: Pick<KeyValueStorage, 'getItem'>): string {
  switch (scope) {
    case 'admin':
      return paths.adminPortal.signIn.href();
    case 'customer':
      return paths.customerPortal.signIn.href();
    case 'consumer':
      return consumerStartPath(storage);
  }
}
