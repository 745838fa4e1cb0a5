import { pageTexts } from '@entry/domain';
import { useEffect, useState } from 'react';
import { AuthCard } from '../../components/auth-layout/auth-layout.tsx';
import { LoadingState } from '../../components/loading-state.tsx';
import { useAppConfig } from '../../config/app-config-context.tsx';
import { browserNavigation } from '../../lib/navigation.ts';
import { lookUpAccessLazily } from './api/load-access-lookup.ts';
import { DomainPickerForm } from './domain-picker-form.tsx';
import { pickerStartFor } from './picker-start.ts';
import './domain-picker.css';

/** The empty path: find the organization by the host, or ask for its domain. */
export function DomainPickerPage() {
  const config = useAppConfig();
  const [start] = useState(() => pickerStartFor(window.location.hostname, config));
  const [showForm, setShowForm] = useState(start.kind === 'form');

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
      else setShowForm(true);
    });
    return () => {
      active = false;
    };
  }, [start]);

  return (
    <AuthCard title={pageTexts.domainPicker.title}>
      {showForm ? <DomainPickerForm config={config} /> : <LoadingState label="Finding your organization…" />}
    </AuthCard>
  );
}
