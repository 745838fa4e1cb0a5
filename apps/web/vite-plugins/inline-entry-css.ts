import type { Plugin } from 'vite';

const stylesheetLink = /<link rel="stylesheet"(?: crossorigin)? href="([^"]+)">/g;

/**
 * Replaces each `<link rel="stylesheet">` of `html` whose file `styleOf` knows by a `<style>`
 * holding that file; the others stay links. Returns the page and the files it inlined.
 */
export function inlineStylesheets(
  html: string,
  styleOf: (href: string) => string | undefined,
): { html: string; inlined: string[] } {
  const inlined: string[] = [];
  const page = html.replace(stylesheetLink, (link, href: string) => {
    const style = styleOf(href);
    if (style === undefined) return link;
    if (/<\/style/i.test(style)) throw new Error(`inline-entry-css: ${href} cannot sit in a <style>`);
    inlined.push(href);
    return `<style>${style}</style>`;
  });
  return { html: page, inlined };
}

/**
 * Writes the entry chunk's stylesheet into index.html instead of linking it. The linked file was
 * the one request the first paint waited for (the header index.html paints before the app loads):
 * one more round trip on a phone's connection. Inlined, it arrives with the page, 3 KB gzipped,
 * and the file is left out of the build. The page's Content-Security-Policy allows inline styles
 * (apps/server/src/app.ts). DESIGN.md section 8, Lighthouse's first contentful paint.
 */
export function inlineEntryCss(): Plugin {
  return {
    name: 'entry-inline-entry-css',
    apply: 'build',
    transformIndexHtml: {
      // After Vite has written the entry's <link rel="stylesheet"> into the page.
      order: 'post',
      handler(html, { bundle }) {
        if (bundle === undefined) return html;
        const page = inlineStylesheets(html, (href) => {
          const output = bundle[href.replace(/^\//, '')];
          if (output?.type !== 'asset') return undefined;
          return typeof output.source === 'string' ? output.source : new TextDecoder().decode(output.source);
        });
        for (const href of page.inlined) delete bundle[href.replace(/^\//, '')];
        return page.html;
      },
    },
  };
}
