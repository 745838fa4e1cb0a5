import type { SecondFactorsResult } from '@entry/client';
import type { ReactNode } from 'react';
import { FormAlert } from '../../../components/form-field.tsx';
import { LoadingState } from '../../../components/loading-state.tsx';
import type { FactorsState } from './use-factors.ts';

/** The user's factors once loaded; until then a loading state, or the failure and a way to try again. */
export function FactorsView({
  state,
  reload,
  children,
}: {
  state: FactorsState;
  reload: () => void;
  children: (factors: SecondFactorsResult) => ReactNode;
}) {
  if (state.status === 'loading') return <LoadingState label="Loading your sign-in methods…" />;
  if (state.status === 'loaded') return children(state.factors);
  return (
    <>
      <FormAlert>{state.message}</FormAlert>
      <div className="portal-actions">
        <button type="button" className="button" onClick={reload}>
          Try again
        </button>
      </div>
    </>
  );
}
