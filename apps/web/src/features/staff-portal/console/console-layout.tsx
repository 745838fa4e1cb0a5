import type { ConsoleAccess } from '@entry/domain';
import { type ReactNode, Suspense, useEffect, useState } from 'react';
import { Link, Navigate, useLocation, useParams } from 'react-router';
import { FormAlert } from '../../../components/form-field.tsx';
import { LoadingState } from '../../../components/loading-state.tsx';
import { consoleHref, type StaffScope, staffPaths } from '../common/staff-scope.ts';
import { sectionsOf } from './console-sections.ts';
import { consoleRefusalMessage, useConsoleApi } from './use-console-api.ts';
import './console.css';

const consoleLayoutMessages = {
  notManager:
    'The console is for admins and for managers of an organization. Ask an admin to make you a manager.',
  loading: 'Loading the console',
} as const;

type AccessState =
  | { status: 'loading' }
  | { status: 'ready'; access: ConsoleAccess }
  | { status: 'failed'; message: string };

function useConsoleAccess(scope: StaffScope): AccessState {
  const api = useConsoleApi(scope);
  const [state, setState] = useState<AccessState>({ status: 'loading' });
  useEffect(() => {
    let active = true;
    api
      .access({ explainedByPage: true })
      .then((access) => active && setState({ status: 'ready', access }))
      .catch(
        (error: unknown) => active && setState({ status: 'failed', message: consoleRefusalMessage(error) }),
      );
    return () => {
      active = false;
    };
  }, [api]);
  return state;
}

/**
 * `/a/console/{section}` and `/d/console/{section}` (the route's `rest`): the console's navigation
 * and the open section, or the first one the user may see. A customer user who is not a manager is
 * told why there is nothing here.
 */
export function ConsoleLayout({ scope }: { scope: StaffScope }) {
  const state = useConsoleAccess(scope);
  const pages = staffPaths(scope);
  const sections = sectionsOf(scope);
  const { pathname } = useLocation();
  const { rest } = useParams();
  const open = sections.find((section) => section.path === rest);
  useEffect(() => {
    document.title = 'Console';
  }, []);

  let body: ReactNode;
  if (state.status === 'loading') body = <LoadingState label={consoleLayoutMessages.loading} />;
  else if (state.status === 'failed') body = <FormAlert>{state.message}</FormAlert>;
  else if (!state.access.console) body = <p>{consoleLayoutMessages.notManager}</p>;
  else
    body = (
      <>
        <nav className="console__nav" aria-label="Console sections">
          <ul>
            {sections.map((section) => (
              <li key={section.path}>
                {/* Link rather than NavLink: NavLink's code would land in the entry chunk with the router. */}
                <Link
                  to={consoleHref(scope, section.path)}
                  aria-current={pathname.startsWith(consoleHref(scope, section.path)) ? 'page' : undefined}
                >
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <Suspense fallback={<LoadingState label={consoleLayoutMessages.loading} />}>
          {open === undefined ? (
            <Navigate to={consoleHref(scope, sections[0]?.path)} replace />
          ) : (
            <open.page scope={scope} />
          )}
        </Suspense>
      </>
    );

  return (
    <section className="console" aria-labelledby="page-title">
      <div className="console__header">
        <h1 id="page-title">Console</h1>
        <Link to={pages.home.href()}>Back to the portal's home</Link>
      </div>
      {body}
    </section>
  );
}
