import type { HtmlTagDescriptor, Plugin, Rolldown } from 'vite';

/** The parts of a bundle's outputs the plugin reads and changes. */
export type BundleFacts = Record<
  string,
  | { type: 'asset'; source: string | Uint8Array }
  | { type: 'chunk'; isEntry: boolean; viteMetadata?: { importedCss: Set<string> } | undefined }
>;

/**
 * Takes the entry chunks' stylesheets out of their `importedCss` and returns their file names:
 * Vite then neither links them from index.html nor lists them among the files a lazy import loads
 * first. The files stay in the bundle until `takeStyles`.
 */
export function unlistEntryStyles(bundle: BundleFacts): string[] {
  const files: string[] = [];
  for (const output of Object.values(bundle)) {
    const importedCss =
      output.type === 'chunk' && output.isEntry ? output.viteMetadata?.importedCss : undefined;
    if (importedCss === undefined) continue;
    files.push(...importedCss);
    importedCss.clear();
  }
  return files;
}

/** The text of each of `files`, each taken out of `bundle`. */
export function takeStyles(bundle: BundleFacts, files: readonly string[]): string[] {
  return files.map((file) => {
    const asset = bundle[file];
    if (asset?.type !== 'asset') throw new Error(`inline-entry-css: ${file} is not in the bundle`);
    delete bundle[file];
    return typeof asset.source === 'string' ? asset.source : new TextDecoder().decode(asset.source);
  });
}

/** Each style as a `<style>` in the page's head. */
export function styleTags(styles: readonly string[]): HtmlTagDescriptor[] {
  return styles.map((style) => {
    if (/<\/style/i.test(style)) throw new Error('inline-entry-css: a stylesheet cannot sit in a <style>');
    return { tag: 'style', children: style, injectTo: 'head' };
  });
}

/**
 * Inlines the entry stylesheet in index.html, so the first paint waits for no second request
 * (docs/rules.md#budgets). The file also leaves the lists Vite loads before a lazy import, where a
 * missing file would fail the import; the page's Content-Security-Policy allows inline styles.
 */
export function inlineEntryCss(): Plugin {
  let files: string[] = [];
  return {
    name: 'entry-inline-entry-css',
    apply: 'build',
    generateBundle: {
      // Before Vite's own hooks read the entry's stylesheets: they write the page's links and the
      // lazy imports' lists.
      order: 'pre',
      handler(_options, bundle: Rolldown.OutputBundle) {
        files = unlistEntryStyles(bundle);
      },
    },
    transformIndexHtml: {
      // In the page's generateBundle, after Vite's stylesheet hook has finished the files' texts.
      order: 'post',
      handler: (html, { bundle }) => ({
        html,
        tags: bundle === undefined ? [] : styleTags(takeStyles(bundle, files)),
      }),
    },
  };
}
