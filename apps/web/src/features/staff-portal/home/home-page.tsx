import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { AuthCard } from '../../../components/auth-layout/auth-layout.tsx';
import { usePortalApi } from '../../../lib/session/portal-api.ts';
import { sessionIdentityOf } from '../../../lib/session/session-identity.ts';
import type { SessionView } from '../../../lib/session/use-session.ts';
import { consoleHref, type StaffScope, staffPaths, staffPortalNames } from '../common/staff-scope.ts';
import { useConsoleApi } from '../console/use-console-api.ts';
import { LaunchPanel } from '../launch/launch-panel.tsx';
import { SessionSummary } from './session-summary.tsx';

/** The customer (tenant) a customer session belongs to, by name once the access call answers. */
function useCustomerName(customerId: number | null): string | null {
  const access = usePortalApi('customer').access;
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    if (customerId === null) return;
    let active = true;
    access
      .byCustomerId(customerId)
      .then((result) => {
        if (active) setName(result.customerName);
      })
      .catch(() => {
        // The id is shown instead; the client has already announced what went wrong.
      });
    return () => {
      active = false;
    };
  }, [access, customerId]);
  return name;
}

/** Whether the console serves the session: every admin, and a customer user who manages their organization. */
function useConsoleOffered(scope: StaffScope, launched: boolean): boolean {
  const api = useConsoleApi(scope);
  const [offered, setOffered] = useState(scope === 'admin' && !launched);
  useEffect(() => {
    if (scope === 'admin' || launched) return;
    let active = true;
    api
      .access({ explainedByPage: true })
      .then((access) => {
        if (active) setOffered(access.console);
      })
      .catch(() => {
        // Without the answer the link stays away; the home page itself still works.
      });
    return () => {
      active = false;
    };
  }, [api, scope, launched]);
  return offered;
}

/**
 * `/a/home` and `/d/home`: who is signed in, the session, sign-out, the way to the sign-in security
 * page; the admin can launch a portal.
 */
export function HomePage({ scope, session }: { scope: StaffScope; session: SessionView }) {
  const customerId = scope === 'customer' ? sessionIdentityOf(session.state.payload).customerId : null;
  const customerName = useCustomerName(customerId);
  const launched = session.record?.accessType === 'Launched';
  const consoleOffered = useConsoleOffered(scope, launched);
  const facts =
    customerId === null ? [] : [{ term: 'Customer', value: customerName ?? `Customer ${customerId}` }];
  return (
    <AuthCard title={staffPortalNames[scope]}>
      <SessionSummary scope={scope} session={session} extraFacts={facts} />
      {!launched && (
        <p className="portal-links">
          <Link to={staffPaths(scope).security.href()}>
            Sign-in security: passkeys, authenticator app, recovery codes
          </Link>
          {consoleOffered && (
            <Link to={consoleHref(scope)}>
              {scope === 'admin'
                ? 'Console: organizations and staff'
                : "Console: your organization's staff and audit log"}
            </Link>
          )}
        </p>
      )}
      {scope === 'admin' && <LaunchPanel />}
    </AuthCard>
  );
}
