import { pageTexts } from '@entry/domain';
import { useCallback, useEffect, useState } from 'react';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { FormAlert } from '../../components/form-field.tsx';
import { LoadingState } from '../../components/loading-state.tsx';
import { UnreachableNotice } from '../../components/unreachable-notice.tsx';
import { useAppConfig } from '../../config/app-config-context.tsx';
import { browserNavigation } from '../../lib/navigation.ts';
import { lookUpAccessLazily } from './api/load-access-lookup.ts';
import { DomainPickerForm } from './domain-picker-form.tsx';
import { pickerTexts } from './domain-picker-texts.ts';
import { pickerStartFor } from './picker-start.ts';
import './domain-picker.css';

/** What the page shows: the lookup of the host under way, its failure, or the form with a notice. */
type PickerView = { kind: 'finding' } | { kind: 'unreachable' } | { kind: 'form'; notice: string | null };

/** The empty path: find the organization by the host, or ask for its domain. */
export function DomainPickerPage() {
  const config = useAppConfig();
  const [start] = useState(() => pickerStartFor(window.location.hostname, config));
  const [view, setView] = useState<PickerView>(
    start.kind === 'form' ? { kind: 'form', notice: null } : { kind: 'finding' },
  );
  const [attempt, setAttempt] = useState(0);
  const tryAgain = useCallback(() => {
    setView({ kind: 'finding' });
    setAttempt((count) => count + 1);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is the request to look the host up again.
  useEffect(() => {
    if (start.kind === 'redirect') {
      browserNavigation.replace(start.url);
      return;
    }
    if (start.kind !== 'lookup') return;
    let active = true;
    void lookUpAccessLazily(start.subdomain).then((lookup) => {
      if (!active) return;
      if (lookup.kind === 'found') browserNavigation.replace(lookup.target);
      else if (lookup.kind === 'unreachable') setView({ kind: 'unreachable' });
      else
        setView({
          kind: 'form',
          notice:
            lookup.kind === 'notFound'
              ? pickerTexts.unknownHost(window.location.hostname)
              : pickerTexts.hostRefused,
        });
    });
    return () => {
      active = false;
    };
  }, [start, attempt]);

  return (
    <AuthCard title={pageTexts.domainPicker.title}>
      {view.kind === 'finding' && <LoadingState label="Finding your organization…" />}
      {view.kind === 'unreachable' && <UnreachableNotice onRetry={tryAgain} />}
      {view.kind === 'form' && (
        <>
          {view.notice !== null && <FormAlert>{view.notice}</FormAlert>}
          <DomainPickerForm config={config} />
        </>
      )}
    </AuthCard>
  );
}
