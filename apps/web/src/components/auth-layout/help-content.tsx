import type { JSX } from 'react';

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

function ConsumerHelp() {
  return (
    <>
      <h3>Why we ask who you are</h3>
      <p>
        The link in your letter is personal. Before it opens your account, we may ask for the last four digits
        of your Social Security number, your ZIP code or your date of birth, then send a code to your e-mail
        address. We use your answers only to check that the link is yours.
      </p>
      <p>After several wrong answers, checking is locked for a while to protect your account.</p>
      <h3>Keeping your account safe</h3>
      <p>
        On a shared phone or computer, choose Sign out when you are done. You are also signed out after 15
        minutes without activity. Never share your link with anyone else.
      </p>
      <p>If your link has expired, contact the organization that wrote to you and ask for a new one.</p>
    </>
  );
}

function CodeHelp() {
  return (
    <>
      <h3>Your code</h3>
      <p>
        We send a 6-digit code to the e-mail address the organization has on file for you. It works for 10
        minutes, and only the newest code works.
      </p>
      <p>
        No mail after a few minutes? Check your spam or junk folder, then ask for a new code. You can ask once
        a minute.
      </p>
      <p>If you no longer use that e-mail address, contact the organization that wrote to you.</p>
    </>
  );
}

function StaffHelp() {
  return (
    <>
      <h3>Signing in</h3>
      <p>Use the username and password of your account with the provider.</p>
      <p>
        Forgot your password? Choose "Forgot your password?" and we mail a link to the address on your
        account. The link works once, for 30 minutes.
      </p>
      <h3>A locked account</h3>
      <p>
        After too many failed sign-ins, an account is locked for a while. Resetting your password unlocks it
        at once. If you do not receive the mail, ask your administrator.
      </p>
    </>
  );
}

function PreferencesHelp() {
  return (
    <>
      <h3>Your email preferences</h3>
      <p>
        Opening the link from an e-mail unsubscribes your address from the organization's e-mails about your
        account. You can subscribe again here at any time; the link in every e-mail keeps working.
      </p>
      <p>
        E-mails you ask for yourself, such as a sign-in code or a password reset link, are always sent, even
        after you unsubscribe.
      </p>
    </>
  );
}

const helpByTopic: Record<HelpTopic, () => JSX.Element> = {
  domain: DomainHelp,
  consumer: ConsumerHelp,
  code: CodeHelp,
  staff: StaffHelp,
  preferences: PreferencesHelp,
};

/** The help panel's text for the page's topic. */
export function HelpContent({ topic = 'domain' }: { topic?: HelpTopic }) {
  const Help = helpByTopic[topic];
  return <Help />;
}
