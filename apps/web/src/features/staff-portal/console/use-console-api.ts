import { type ConsoleApi, createConsoleApi, isApiError } from '@entry/client';
import { useMemo } from 'react';
import { usePortalApi } from '../../../lib/session/portal-api.ts';
import { commonRefusalMessage } from '../../../lib/session/sign-in-errors.ts';
import type { StaffScope } from '../common/staff-scope.ts';

/** The console's calls over the portal's own client: its token, refresh and session endings. */
export function useConsoleApi(scope: StaffScope): ConsoleApi {
  const { http } = usePortalApi(scope);
  return useMemo(() => createConsoleApi(http), [http]);
}

/** What a refused console call says: the server's own words for a refusal of this request, else the common text. */
export function consoleRefusalMessage(error: unknown): string {
  if (isApiError(error) && error.body !== undefined && [400, 403, 404, 409].includes(error.status ?? 0)) {
    return error.body.message;
  }
  return commonRefusalMessage(error);
}

/** A date and time as the console's tables show it, in the reader's own zone. */
export function consoleTime(iso: string | null, none: string): string {
  if (iso === null) return none;
  return new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });
}
