import { createTokenStore, type KeyValueStorage } from '@entry/client';
import { scopes, shouldDropTokenOnUpdate } from '@entry/domain';

/** Before loading a new version: drop every scope's token that has neither restricted access nor a roleId. */
export function dropTokensWithoutRole(storage: KeyValueStorage): void {
  const tokens = createTokenStore(storage, 'consumer');
  for (const scope of scopes) {
    const record = tokens.get({ scope });
    if (record !== null && shouldDropTokenOnUpdate(record)) tokens.remove({ scope });
  }
}
