import type { SecondFactorsResult } from '@entry/client';
import { useCallback, useEffect, useState } from 'react';
import { secondFactorRefusal } from './second-factor-errors.ts';
import { type StaffScope, useSecondFactors } from './staff-scope.ts';

export type FactorsState =
  | { status: 'loading' }
  | { status: 'loaded'; factors: SecondFactorsResult }
  | { status: 'failed'; message: string };

/**
 * The signed-in user's second factors, loaded when `enabled`; `reload` reads them again (after a
 * change, or to try again after a failure) and keeps the ones shown until the answer comes.
 */
export function useFactors(scope: StaffScope, enabled: boolean) {
  const secondFactors = useSecondFactors(scope);
  const [state, setState] = useState<FactorsState>({ status: 'loading' });
  const [generation, setGeneration] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `generation` is what a reload changes.
  useEffect(() => {
    if (!enabled) return;
    let active = true;
    secondFactors
      .get({ explainedByPage: true })
      .then((factors) => {
        if (active) setState({ status: 'loaded', factors });
      })
      .catch((error: unknown) => {
        if (active) setState({ status: 'failed', message: secondFactorRefusal(error) });
      });
    return () => {
      active = false;
    };
  }, [secondFactors, enabled, generation]);

  const reload = useCallback(() => {
    setState((current) => (current.status === 'loaded' ? current : { status: 'loading' }));
    setGeneration((value) => value + 1);
  }, []);

  return { state, reload };
}
