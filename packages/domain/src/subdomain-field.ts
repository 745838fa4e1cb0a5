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
export const subdomainFieldValidators: readonly Validator[] = [
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
