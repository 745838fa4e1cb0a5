import { createHash } from 'node:crypto';
import type { LogoMediaType } from '../db/schema.ts';
import { refuse } from '../refusals.ts';
import type { NewTenantLogo } from '../stores/tenants.ts';

/** A logo is small: it shows in a header some 40 pixels high. */
export const maxLogoBytes = 64 * 1024;

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The drawing elements a logo needs; anything else (script, foreignObject, image, animation) is refused. */
const svgElements = new Set(
  [
    'svg',
    'g',
    'defs',
    'symbol',
    'use',
    'title',
    'desc',
    'metadata',
    'style',
    'path',
    'rect',
    'circle',
    'ellipse',
    'line',
    'polyline',
    'polygon',
    'text',
    'tspan',
    'textPath',
    'linearGradient',
    'radialGradient',
    'stop',
    'clipPath',
    'mask',
    'pattern',
    'filter',
    'feGaussianBlur',
    'feOffset',
    'feBlend',
    'feFlood',
    'feComposite',
    'feColorMatrix',
    'feMerge',
    'feMergeNode',
  ].map((name) => name.toLowerCase()),
);

/**
 * Why an SVG is refused, or null when it draws only. The file is refused rather than cleaned: a
 * cleaner has to understand every way XML can hide a script or a reference, a refusal only has to
 * find none. Character references (`&#...;`) are refused too, since they can spell `url(` or
 * `javascript:` where a plain search does not see them.
 */
function svgLogoProblem(text: string): string | null {
  const body = text.replace(/^\s*<\?xml\s[^?]*\?>/i, '');
  if (!/^\s*(?:<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(body)) return 'it does not start with an <svg> element';
  if (!/<\/svg>\s*$/i.test(body)) return 'it does not end with </svg>';
  if (/<!(?!--)/.test(body)) return 'it has a DOCTYPE, an entity or a CDATA section';
  if (/<\?/.test(body)) return 'it has a processing instruction';
  if (/&#/.test(body)) return 'it has character references';
  for (const match of body.matchAll(/<\s*([A-Za-z][\w:.-]*)/g)) {
    const name = (match[1] ?? '').toLowerCase();
    if (!svgElements.has(name)) return `it has a <${match[1]}> element`;
  }
  if (/\son[a-z]+\s*=/i.test(body)) return 'it has an event attribute';
  for (const match of body.matchAll(/\s(?:[\w-]+:)?href\s*=\s*(["'])(.*?)\1/gi)) {
    if (!(match[2] ?? '').trim().startsWith('#')) return 'it refers to another file';
  }
  if (/url\(\s*(?!["']?\s*#)/i.test(body)) return 'it refers to another file';
  if (/@import|image-set\(|javascript:|(?<![\w-])data:/i.test(body)) return 'it refers to another file';
  return null;
}

function mediaTypeOf(content: Buffer): LogoMediaType | null {
  if (content.subarray(0, pngSignature.length).equals(pngSignature)) return 'image/png';
  const head = content.subarray(0, 512).toString('utf8');
  return /<svg[\s>]/i.test(head) ? 'image/svg+xml' : null;
}

/**
 * A logo file as the operator gave it, checked: PNG or SVG, at most `maxLogoBytes`, and an SVG
 * that only draws. Refused with 400 InvalidValue on `logo` otherwise.
 */
export function checkedLogo(content: Buffer): NewTenantLogo {
  if (content.length === 0) throw refuse('invalidLogo', 'the file is empty');
  if (content.length > maxLogoBytes) {
    throw refuse('invalidLogo', `it has ${content.length} bytes, more than ${maxLogoBytes}`);
  }
  const mediaType = mediaTypeOf(content);
  if (mediaType === null) throw refuse('invalidLogo', 'it is neither a PNG nor an SVG file');
  if (mediaType === 'image/png') {
    // A PNG begins with its header chunk; anything else is not a picture a browser shows.
    if (content.subarray(12, 16).toString('latin1') !== 'IHDR') {
      throw refuse('invalidLogo', 'it is not a complete PNG file');
    }
  } else {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(content);
    } catch {
      throw refuse('invalidLogo', 'the SVG is not UTF-8 text');
    }
    const problem = svgLogoProblem(text);
    if (problem !== null) throw refuse('invalidLogo', problem);
  }
  return { mediaType, content, digest: createHash('sha256').update(content).digest('hex').slice(0, 32) };
}
