import { describe, expect, it } from 'vitest';
import { inlineStylesheets } from './inline-entry-css.ts';

const page = [
  '<head><script type="module" crossorigin src="/assets/index-a1.js"></script>',
  '<link rel="stylesheet" crossorigin href="/assets/index-b2.css">',
  '<link rel="stylesheet" href="/assets/other-c3.css"></head>',
].join('');

describe('inlineStylesheets', () => {
  it('puts a known stylesheet into the page where its link was, and says which it inlined', () => {
    const styles: Record<string, string> = { '/assets/index-b2.css': '.brand{color:red}' };
    const result = inlineStylesheets(page, (href) => styles[href]);
    expect(result.html).toBe(
      [
        '<head><script type="module" crossorigin src="/assets/index-a1.js"></script>',
        '<style>.brand{color:red}</style>',
        '<link rel="stylesheet" href="/assets/other-c3.css"></head>',
      ].join(''),
    );
    expect(result.inlined).toEqual(['/assets/index-b2.css']);
  });

  it('leaves the page alone when it knows none of the stylesheets', () => {
    expect(inlineStylesheets(page, () => undefined)).toEqual({ html: page, inlined: [] });
  });

  it('refuses a stylesheet that would close the <style> early', () => {
    expect(() => inlineStylesheets(page, () => 'a::after{content:"</style>"}')).toThrow(/cannot sit/);
    expect(() => inlineStylesheets(page, () => 'a::after{content:"</STYLE>"}')).toThrow(/cannot sit/);
  });
});
