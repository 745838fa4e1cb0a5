/** Our own texts of the picker for what the spec leaves open: a lookup that got no usable answer. */
export const pickerTexts = {
  unknownHost: (host: string) =>
    `No organization uses the address ${host}. Check the address in your letter or e-mail, or enter your domain below.`,
  lookupUnreachable:
    'We cannot reach the server right now, so your domain could not be checked. Check your internet connection, then choose Next again.',
  lookupRefused:
    'We could not check this domain just now. Please wait a few minutes, then choose Next again.',
  hostRefused:
    'We could not look up the organization at this address just now. Please wait a few minutes and try again, or enter your domain below.',
} as const;
