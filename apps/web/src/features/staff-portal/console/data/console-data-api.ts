import { isApiError } from '@entry/client';
import {
  type ConsoleDataApi,
  createConsoleDataApi,
  createConsoleHttpClient,
} from '@entry/client/console-data';
import { useMemo } from 'react';
import { portalHooks, usePortalServices } from '../../../../lib/session/portal-api.ts';
import type { StaffScope } from '../../common/staff-scope.ts';

/**
 * The console's data calls over the portal's own client, so they share its session and refresh.
 * They come from their own entry of the client package, so only these lazily loaded pages carry them.
 */
export function useConsoleData(scope: StaffScope): ConsoleDataApi {
  const { api, storage, fetch, hooks } = usePortalServices();
  return useMemo(() => {
    const http = createConsoleHttpClient({
      scope,
      tokens: api(scope).tokens,
      hooks: hooks?.(scope) ?? portalHooks(scope, storage),
      fetch,
      // The lock the portal's own client takes too: one refresh at a time for both.
      locks: globalThis.navigator?.locks,
    });
    return createConsoleDataApi(http);
  }, [scope, api, storage, fetch, hooks]);
}

/** One problem of a refused file or filter: where (`line 3, column 2 (email)`) and what. */
export interface Problem {
  field: string;
  message: string;
}

/** The problems a refusal lists, each with its place in the file. */
export function problemsOf(error: unknown): Problem[] {
  return isApiError(error) ? (error.body?.errors ?? []) : [];
}

/** The server's own sentence for a refusal, when it gave one. */
export function refusalTextOf(error: unknown): string | undefined {
  return isApiError(error) ? error.body?.message : undefined;
}

/** Hands text to the browser as a file to save. */
export function saveAsFile(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // The click has started the download; the address is of no further use.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
