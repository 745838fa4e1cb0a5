import { describe, expect, it } from 'vitest';
import { type BundleFacts, styleTags, takeStyles, unlistEntryStyles } from './inline-entry-css.ts';

/** An entry chunk with its stylesheet, a lazy page with its own, and the two files. */
function bundle() {
  const entryCss = new Set(['assets/index-b2.css']);
  const pageCss = new Set(['assets/page-d4.css']);
  const outputs: BundleFacts = {
    'assets/index-a1.js': { type: 'chunk', isEntry: true, viteMetadata: { importedCss: entryCss } },
    'assets/page-c3.js': { type: 'chunk', isEntry: false, viteMetadata: { importedCss: pageCss } },
    'assets/index-b2.css': { type: 'asset', source: '.brand{color:red}' },
    'assets/page-d4.css': { type: 'asset', source: new TextEncoder().encode('.page{margin:0}') },
  };
  return { outputs, entryCss, pageCss };
}

describe('unlistEntryStyles', () => {
  it("takes the entry's stylesheet out of the chunk's list and names it, leaving the file", () => {
    const { outputs, entryCss } = bundle();
    expect(unlistEntryStyles(outputs)).toEqual(['assets/index-b2.css']);
    expect(entryCss.size).toBe(0);
    expect(Object.keys(outputs)).toContain('assets/index-b2.css');
  });

  it("leaves a lazy chunk's stylesheet listed", () => {
    const { outputs, pageCss } = bundle();
    unlistEntryStyles(outputs);
    expect([...pageCss]).toEqual(['assets/page-d4.css']);
  });
});

describe('takeStyles', () => {
  it('returns the texts of the files, of text or of bytes, and takes the files out of the bundle', () => {
    const { outputs } = bundle();
    expect(takeStyles(outputs, ['assets/index-b2.css', 'assets/page-d4.css'])).toEqual([
      '.brand{color:red}',
      '.page{margin:0}',
    ]);
    expect(Object.keys(outputs)).toEqual(['assets/index-a1.js', 'assets/page-c3.js']);
  });

  it('refuses a file the bundle does not hold', () => {
    expect(() => takeStyles(bundle().outputs, ['assets/gone.css'])).toThrow(/not in the bundle/);
  });
});

describe('styleTags', () => {
  it('puts each style in a <style> of the head', () => {
    expect(styleTags(['.brand{color:red}'])).toEqual([
      { tag: 'style', children: '.brand{color:red}', injectTo: 'head' },
    ]);
  });

  it('refuses a style that would close the <style> early, in any case', () => {
    expect(() => styleTags(['a::after{content:"</style>"}'])).toThrow(/cannot sit/);
    expect(() => styleTags(['a::after{content:"</STYLE>"}'])).toThrow(/cannot sit/);
  });
});
