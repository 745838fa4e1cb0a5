import { lazy, Suspense } from 'react';

/** What the help panel explains: the page's own task (our own help texts; the spec has none). */
export type HelpTopic = 'domain' | 'consumer' | 'code' | 'staff' | 'preferences';

/** The help topic of a path of the app. */
export function helpTopicOf(pathname: string): HelpTopic {
  if (pathname === '/unsubscribe') return 'preferences';
  if (/^\/[ad](\/|$)/.test(pathname)) return 'staff';
  if (pathname === '/c/mfa') return 'code';
  // The consumer portal, and a link from a letter (`/{token}...`) on its way there.
  if (pathname !== '/') return 'consumer';
  return 'domain';
}

function DomainHelp() {
  return (
    <>
      <h3>Finding your domain</h3>
      <p>
        Your domain is the short name of the organization that wrote to you. It is printed on the letter or
        e-mail you received, usually in the web address, for example the <em>sender</em> in
        <span className="nowrap"> sender.example.com</span>.
      </p>
      <p>Type that name, or paste the whole web address from your letter, then choose Next.</p>
      <h3>The link in your letter</h3>
      <p>
        The web address in your letter or e-mail contains a personal code. Opening it takes you straight to
        your account, sometimes after a short check that it is you.
      </p>
    </>
  );
}

const PageHelp = lazy(() => import('./help-topics.tsx').then((m) => ({ default: m.PageHelp })));

/** The help panel's text for the page's topic. */
export function HelpContent({ topic = 'domain' }: { topic?: HelpTopic }) {
  if (topic === 'domain') return <DomainHelp />;
  return (
    <Suspense fallback={null}>
      <PageHelp topic={topic} />
    </Suspense>
  );
}
