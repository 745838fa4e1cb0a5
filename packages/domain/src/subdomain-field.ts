import { subdomainLength } from './constants.ts';
import { subdomainFieldMessages } from './messages.ts';
import {
  type FieldValue,
  fail,
  isEmpty,
  matches,
  rule,
  subdomainPattern,
  type ValidationError,
  type Validator,
} from './validation-core.ts';

/** The subdomain field of the domain picker: required, then 3 to 63 characters, then a valid subdomain. */
const subdomainFieldValidators: readonly Validator[] = [
  (value) => (isEmpty(value) ? fail('required', subdomainFieldMessages.required) : null),
  rule('lengthRange', subdomainFieldMessages.length, (text) => {
    return text.length >= subdomainLength.min && text.length <= subdomainLength.max;
  }),
  rule('subdomain', subdomainFieldMessages.invalidSubdomain, matches(subdomainPattern)),
];

/** The first failing check of the subdomain field, or null when the value is valid. */
export function validateSubdomainField(value: FieldValue): ValidationError | null {
  for (const validate of subdomainFieldValidators) {
    const error = validate(value);
    if (error) return error;
  }
  return null;
}

/**
 * What a person typed or pasted into the subdomain field, reduced to the subdomain: spaces around
 * it and capitals go, and a full host (`sender.example.com`) or a web address of the parent domain
 * (`https://sender.example.com:8080/`) gives its first label. Anything else is left for the
 * field's checks to explain.
 */
export function subdomainFromInput(value: string, parentDomain: string): string {
  const text = value.trim().toLowerCase();
  const host = text
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/^[^@]*@/, '')
    .replace(/:\d*$/, '')
    .replace(/\.$/, '');
  const suffix = `.${parentDomain.toLowerCase()}`;
  return host.length > suffix.length && host.endsWith(suffix) ? host.slice(0, -suffix.length) : host;
}
