/**
 * Logs never hold secrets in transit (docs/rules.md#security): identity tokens in paths, the
 * `mfaCode`, `Token`, `token` and refresh values in queries, cookies and authorization headers,
 * and the `EmailAddress` of a subscription change (a person's address).
 */

const secretQueryParameters = /^(token|mfacode|refreshtoken|resettoken|session-guid|emailaddress)$/i;
const redacted = '[redacted]';

/** App paths whose first segment is a page, not a token from a letter. */
const knownFirstSegments = new Set(['', 'a', 'd', 'c', 'unsubscribe', 'assets', 'api']);

const secretPathPatterns: RegExp[] = [
  /^(\/api\/auth\/v1\/consumers\/token\/)[^/?]+/,
  /^(\/api\/v1\/communication\/email\/subscription\/token\/)[^/?]+/,
];

export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  let path = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = queryStart === -1 ? '' : url.slice(queryStart + 1);

  for (const pattern of secretPathPatterns) path = path.replace(pattern, `$1${redacted}`);
  const firstSegment = path.split('/')[1] ?? '';
  if (!knownFirstSegments.has(firstSegment) && !firstSegment.includes('.')) {
    // A link from a letter: /{token}/{target}/{targetId}.
    path = `/${redacted}${path.slice(firstSegment.length + 1)}`;
  }
  if (query === '') return path;
  const parameters = query.split('&').map((pair) => {
    const name = decodeURIComponentSafe(pair.split('=')[0] ?? '');
    return secretQueryParameters.test(name) ? `${pair.split('=')[0]}=${redacted}` : pair;
  });
  return `${path}?${parameters.join('&')}`;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export const redactedLogPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["session-guid"]',
  'res.headers["set-cookie"]',
];
