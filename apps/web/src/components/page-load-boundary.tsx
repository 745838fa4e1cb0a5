import { Component, type ReactNode } from 'react';
import { textsOf } from '../i18n/language.ts';
import { AuthCard } from './auth-layout/auth-layout.tsx';
import { layoutTexts } from './auth-layout/layout-texts.ts';
import { UnreachableNotice } from './unreachable-notice.tsx';

/** Loads the page again: a page's script that failed to load is asked for again only by a reload. */
function reload(): void {
  window.location.reload();
}

/**
 * A page whose script could not be loaded (a first visit on a lost connection) says so and offers
 * to try again, instead of leaving the page blank. The address is untouched, so a link opened
 * this way is tried again as it was.
 */
export class PageLoadBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <AuthCard title={textsOf('layout', layoutTexts).pageNotLoaded}>
        <UnreachableNotice onRetry={reload} />
      </AuthCard>
    );
  }
}
