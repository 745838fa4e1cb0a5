/**
 * A controllable `window.matchMedia` for jsdom, which has none: `setWidth` changes the viewport
 * width and tells every listener whose query flips.
 */
export function installMatchMedia(initialWidth: number) {
  let width = initialWidth;
  const lists = new Set<{
    query: string;
    matches: boolean;
    listeners: Set<(event: MediaQueryListEvent) => void>;
  }>();

  const evaluate = (query: string): boolean => {
    const max = /max-width:\s*(\d+)px/.exec(query);
    const min = /min-width:\s*(\d+)px/.exec(query);
    return (max === null || width <= Number(max[1])) && (min === null || width >= Number(min[1]));
  };

  window.matchMedia = (query: string): MediaQueryList => {
    const entry = {
      query,
      matches: evaluate(query),
      listeners: new Set<(event: MediaQueryListEvent) => void>(),
    };
    lists.add(entry);
    return {
      get matches() {
        return evaluate(query);
      },
      media: query,
      onchange: null,
      addEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) =>
        entry.listeners.add(listener),
      removeEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) =>
        entry.listeners.delete(listener),
      addListener: () => {},
      removeListener: () => {},
      dispatchEvent: () => true,
    } as unknown as MediaQueryList;
  };

  return {
    setWidth(next: number) {
      width = next;
      for (const entry of lists) {
        const matches = evaluate(entry.query);
        if (matches === entry.matches) continue;
        entry.matches = matches;
        for (const listener of entry.listeners)
          listener({ matches, media: entry.query } as MediaQueryListEvent);
      }
    },
  };
}
