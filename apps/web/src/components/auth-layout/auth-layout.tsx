import { lazy, type ReactNode, Suspense, useEffect, useId, useRef } from 'react';
import { paths } from '../../config/paths.ts';
import { useTexts } from '../../i18n/language.ts';
import {
  type Organization,
  useHostSubdomain,
  useOrganization,
  useOrganizationName,
} from '../../lib/organization.ts';
import { Logo } from '../logo/logo.tsx';
import { HelpContent, type HelpTopic } from './help-content.tsx';
import { layoutTexts } from './layout-texts.ts';
import { useHelpPanel } from './use-help-panel.ts';
import './auth-layout.css';

/**
 * The organization's parts and the language switch show on tenants' hosts only (the consumer
 * pages), so the entry page loads none of them.
 */
const LanguageSwitch = lazy(() =>
  import('../language-switch/language-switch.tsx').then((m) => ({ default: m.LanguageSwitch })),
);
const OrganizationContact = lazy(() =>
  import('../organization/organization-contact.tsx').then((m) => ({ default: m.OrganizationContact })),
);
const OrganizationFooter = lazy(() =>
  import('../organization/organization-contact.tsx').then((m) => ({ default: m.OrganizationFooter })),
);

/**
 * The header's mark and name: on a tenant's host the organization's (its logo when it has one),
 * elsewhere, and until the organization is known, the product's.
 */
function Brand({ organization, name }: { organization: Organization | null; name: string }) {
  return (
    <a className="brand" href={paths.domainPicker.href()}>
      {organization?.logoUrl ? (
        <img className="brand__logo" src={organization.logoUrl} alt="" height={32} />
      ) : (
        <Logo />
      )}
      <span className="brand__name">{name}</span>
    </a>
  );
}

/** The organization's name and contact on its pages, and the product's privacy link on every page. */
function PageFooter({ organization, inert }: { organization: Organization | null; inert: boolean }) {
  const texts = useTexts('layout', layoutTexts);
  return (
    <footer className="auth-footer" inert={inert}>
      {organization !== null && (
        <Suspense fallback={null}>
          <OrganizationFooter organization={organization} />
        </Suspense>
      )}
      <p className="auth-footer__links">
        <a href={paths.privacy.href()}>{texts.privacy}</a>
      </p>
    </footer>
  );
}

/**
 * The frame of every entry and sign-in page: a header with the logo and the help button, the page
 * in the main area, the help panel on the right (an overlay on narrow screens, docked on wide
 * ones) with the help of the page's topic, and the footer.
 */
export function AuthLayout({ children, helpTopic }: { children: ReactNode; helpTopic?: HelpTopic }) {
  const organization = useOrganization();
  const organizationName = useOrganizationName();
  const onTenantHost = useHostSubdomain() !== null;
  const texts = useTexts('layout', layoutTexts);
  const panel = useHelpPanel();
  const panelId = useId();
  const titleId = useId();
  const triggerRef = useRef<HTMLButtonElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const isModal = panel.isOverlay && panel.isOpen;
  const wasModal = useRef(false);

  useEffect(() => {
    if (isModal) closeRef.current?.focus();
    else if (wasModal.current) triggerRef.current?.focus();
    wasModal.current = isModal;
  }, [isModal]);

  useEffect(() => {
    if (!isModal) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') panel.close();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [isModal, panel.close]);

  const layoutClass = [
    'auth-layout',
    panel.isOpen && !panel.isOverlay ? 'auth-layout--docked' : '',
    panel.isAnimationSuppressed ? 'auth-layout--no-animation' : '',
  ]
    .filter(Boolean)
    .join(' ');

  return (
    <div className={layoutClass}>
      <a className="skip-link" href="#main">
        {texts.skipToContent}
      </a>
      <header className="auth-header" inert={isModal}>
        <Brand organization={organization} name={organizationName} />
        {onTenantHost && (
          <Suspense fallback={null}>
            <LanguageSwitch />
          </Suspense>
        )}
        <button
          ref={triggerRef}
          type="button"
          className="button button--quiet"
          aria-expanded={panel.isOpen}
          aria-controls={panelId}
          onClick={panel.toggle}
        >
          {texts.help}
        </button>
      </header>
      <div className="auth-body">
        <main id="main" className="auth-main" tabIndex={-1} inert={isModal}>
          {children}
        </main>
        {isModal && <div className="help-backdrop" aria-hidden="true" onClick={panel.close} />}
        <aside
          id={panelId}
          className={panel.isOverlay ? 'help-panel help-panel--overlay' : 'help-panel'}
          hidden={!panel.isOpen}
          aria-labelledby={titleId}
          {...(panel.isOverlay ? { role: 'dialog', 'aria-modal': true } : {})}
        >
          <div className="help-panel__header">
            <h2 id={titleId} className="help-panel__title">
              {texts.help}
            </h2>
            <button
              ref={closeRef}
              type="button"
              className="icon-button"
              aria-label={texts.closeHelp}
              onClick={panel.close}
            >
              <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
                <path
                  d="M6 6l12 12M18 6 6 18"
                  stroke="currentColor"
                  strokeWidth="2"
                  strokeLinecap="round"
                  fill="none"
                />
              </svg>
            </button>
          </div>
          <div className="help-panel__body">
            {organization !== null && (
              <Suspense fallback={null}>
                <OrganizationContact organization={organization} headingLevel={3} />
              </Suspense>
            )}
            <HelpContent topic={helpTopic} />
          </div>
        </aside>
      </div>
      <PageFooter organization={organization} inert={isModal} />
    </div>
  );
}

/**
 * The card in the main area: a page title, its content and, usually, a form. The title names the
 * tab too, with the organization's name on its pages ("Verify your identity - Sender Collections").
 */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  const organizationName = useOrganizationName();
  useEffect(() => {
    document.title = `${title} - ${organizationName}`;
  }, [title, organizationName]);
  return (
    <section className="auth-card" aria-labelledby="page-title">
      <h1 id="page-title" className="auth-card__title">
        {title}
      </h1>
      {children}
    </section>
  );
}
