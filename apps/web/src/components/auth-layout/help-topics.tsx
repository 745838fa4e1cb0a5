import { Fragment } from 'react';
import { useTexts } from '../../i18n/language.ts';
import { helpTexts } from './help-texts.ts';

/** The staff pages' help: those pages are in English only. */
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

type PageHelpTopic = keyof typeof helpTexts | 'staff';

/**
 * The help of every page but the domain picker's, in a chunk of its own: the entry page carries
 * only its own help (the entry budget, bench/RESULTS.md).
 */
export function PageHelp({ topic }: { topic: PageHelpTopic }) {
  const texts = useTexts('help', helpTexts);
  if (topic === 'staff') return <StaffHelp />;
  return texts[topic].map((section) => (
    <Fragment key={section.heading}>
      <h3>{section.heading}</h3>
      {section.paragraphs.map((paragraph) => (
        <p key={paragraph}>{paragraph}</p>
      ))}
    </Fragment>
  ));
}
