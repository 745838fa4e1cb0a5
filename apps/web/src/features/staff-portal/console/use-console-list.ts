import { useCallback, useEffect, useState } from 'react';
import { consoleRefusalMessage } from './use-console-api.ts';

export type ListState<T> =
  | { status: 'loading' }
  | { status: 'failed'; message: string }
  | { status: 'ready'; items: T[] };

/** A console list that loads again whenever `load` changes (a new search) or `reload` is called. */
export function useConsoleList<T>(load: () => Promise<T[]>): { state: ListState<T>; reload: () => void } {
  const [state, setState] = useState<ListState<T>>({ status: 'loading' });
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: round asks for the same list again.
  useEffect(() => {
    let active = true;
    setState({ status: 'loading' });
    load()
      .then((items) => active && setState({ status: 'ready', items }))
      .catch(
        (error: unknown) => active && setState({ status: 'failed', message: consoleRefusalMessage(error) }),
      );
    return () => {
      active = false;
    };
  }, [load, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { state, reload };
}
