import { readFileSync } from 'node:fs';
import path from 'node:path';
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { installMatchMedia } from '../../testing/match-media.ts';
import { AuthLayout } from './auth-layout.tsx';

const indexHtml = readFileSync(path.join(import.meta.dirname, '../../../index.html'), 'utf8');

/** Markup without the white space between tags, which neither the browser nor React shows. */
function normalized(html: string): string {
  return html.replace(/>\s+</g, '><').trim();
}

describe('the header index.html paints before the app has loaded', () => {
  const page = new DOMParser().parseFromString(indexHtml, 'text/html');
  const firstPaint = page.querySelector('#root .auth-header');

  it('is the header of the authentication layout, as the app renders it', () => {
    installMatchMedia(375);
    const { container } = render(<AuthLayout>page</AuthLayout>);
    const rendered = container.querySelector('.auth-header .brand');
    expect(firstPaint).not.toBeNull();
    expect(normalized(firstPaint?.querySelector('.brand')?.outerHTML ?? '')).toBe(
      normalized(rendered?.outerHTML ?? 'no brand rendered'),
    );
  });

  it('holds nothing a person could use before the app can answer it', () => {
    expect(firstPaint?.querySelectorAll('button, input, select, textarea')).toHaveLength(0);
  });
});
