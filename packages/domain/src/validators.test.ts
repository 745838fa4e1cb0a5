import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { subdomainFieldMessages } from './messages.ts';
import { subdomainFromInput, validateSubdomainField } from './subdomain-field.ts';
import { usStates } from './us-states.ts';
import { type FieldValue, type Validator, validators } from './validators.ts';

const passes = (validate: Validator, value: FieldValue) => validate(value) === null;

/** Every validator of the object, the factories with sample arguments. */
const allValidators: ReadonlyArray<readonly [string, Validator]> = [
  ['invalidClientId', (value) => validators.invalidClientId(value)],
  ['decimal', validators.decimal],
  ['integer', validators.integer],
  ['number', validators.number],
  ['minValue', validators.minValue(5)],
  ['maxValue', validators.maxValue(5)],
  ['range', validators.range(1, 5)],
  ['lengthRange', validators.lengthRange(2, 4)],
  ['exactLength', validators.exactLength(3)],
  ['identifier', validators.identifier],
  ['email', validators.email],
  ['phone', validators.phone],
  ['shortOrLongCode', validators.shortOrLongCode],
  ['ssn', validators.ssn],
  ['date', validators.date],
  ['subdomain', validators.subdomain],
  ['usState', validators.usState],
  ['nonZero', validators.nonZero],
  ['oneOf', validators.oneOf(validators.phone, validators.email)],
  ['day', validators.day],
  ['month', validators.month],
  ['year', validators.year],
  [
    'atLeastOneHasValue',
    (value) =>
      validators.atLeastOneHasValue(['a'])(
        value === null || value === undefined || value === '' ? value : { a: value },
      ),
  ],
  ['onlyAlpha', validators.onlyAlpha],
  ['onlyNumeric', validators.onlyNumeric],
  ['onlyAlphaOrNumeric', validators.onlyAlphaOrNumeric],
  ['whiteSpace', validators.whiteSpace],
  ['validOptionValidator', validators.validOptionValidator(['a'])],
];

describe('validators', () => {
  it('has exactly the spec names as keys', () => {
    expect(Object.keys(validators).sort()).toEqual(
      [
        'invalidClientId',
        'decimal',
        'integer',
        'number',
        'minValue',
        'maxValue',
        'range',
        'lengthRange',
        'exactLength',
        'identifier',
        'email',
        'phone',
        'shortOrLongCode',
        'ssn',
        'date',
        'subdomain',
        'usState',
        'nonZero',
        'oneOf',
        'day',
        'month',
        'year',
        'atLeastOneHasValue',
        'onlyAlpha',
        'onlyNumeric',
        'onlyAlphaOrNumeric',
        'whiteSpace',
        'validOptionValidator',
      ].sort(),
    );
    expect(allValidators.map(([name]) => name).sort()).toEqual(Object.keys(validators).sort());
  });

  it.each(allValidators)('%s passes null, undefined and the empty string', (_name, validate) => {
    expect(validate(null)).toBeNull();
    expect(validate(undefined)).toBeNull();
    expect(validate('')).toBeNull();
  });

  it('atLeastOneHasValue passes a missing object', () => {
    expect(validators.atLeastOneHasValue(['a'])(null)).toBeNull();
    expect(validators.atLeastOneHasValue(['a'])(undefined)).toBeNull();
  });
});

/** [validator, value, passes?] tables, one per validator. */
const table: ReadonlyArray<readonly [string, Validator, FieldValue, boolean]> = [
  ['decimal', validators.decimal, '12', true],
  ['decimal', validators.decimal, '12.50', true],
  ['decimal', validators.decimal, 12.5, true],
  ['decimal', validators.decimal, '0.1', true],
  ['decimal', validators.decimal, '.5', false],
  ['decimal', validators.decimal, '5.', false],
  ['decimal', validators.decimal, '-1', false],
  ['decimal', validators.decimal, '1,5', false],
  ['decimal', validators.decimal, '1.2.3', false],
  ['integer', validators.integer, '0', true],
  ['integer', validators.integer, '0042', true],
  ['integer', validators.integer, 42, true],
  ['integer', validators.integer, '4.2', false],
  ['integer', validators.integer, '-4', false],
  ['integer', validators.integer, ' 4', false],
  ['number', validators.number, '4', true],
  ['number', validators.number, '4.25', true],
  ['number', validators.number, 'four', false],
  ['minValue(5)', validators.minValue(5), '5', true],
  ['minValue(5)', validators.minValue(5), 4.99, false],
  ['minValue(5, false)', validators.minValue(5, false), '5', false],
  ['minValue(5, false)', validators.minValue(5, false), '5.01', true],
  ['minValue(-2)', validators.minValue(-2), '-2', true],
  ['minValue(-2)', validators.minValue(-2), '-3', false],
  ['minValue(5)', validators.minValue(5), 'abc', true],
  ['maxValue(5)', validators.maxValue(5), '5', true],
  ['maxValue(5)', validators.maxValue(5), '6', false],
  ['maxValue(5, false)', validators.maxValue(5, false), 5, false],
  ['maxValue(5, false)', validators.maxValue(5, false), '4.9', true],
  ['range(1, 5)', validators.range(1, 5), '1', true],
  ['range(1, 5)', validators.range(1, 5), '5', true],
  ['range(1, 5)', validators.range(1, 5), '0', false],
  ['range(1, 5)', validators.range(1, 5), 6, false],
  ['range(1, 5, false)', validators.range(1, 5, false), '1', false],
  ['range(1, 5, false)', validators.range(1, 5, false), '3', true],
  ['lengthRange(2, 4)', validators.lengthRange(2, 4), 'a', false],
  ['lengthRange(2, 4)', validators.lengthRange(2, 4), 'ab', true],
  ['lengthRange(2, 4)', validators.lengthRange(2, 4), 'abcd', true],
  ['lengthRange(2, 4)', validators.lengthRange(2, 4), 'abcde', false],
  ['lengthRange(2, 4)', validators.lengthRange(2, 4), 123, true],
  ['exactLength(3)', validators.exactLength(3), 'abc', true],
  ['exactLength(3)', validators.exactLength(3), 'ab', false],
  ['exactLength(3)', validators.exactLength(3), 'abcd', false],
  ['identifier', validators.identifier, 'a', true],
  ['identifier', validators.identifier, 'Abc_1-x', true],
  ['identifier', validators.identifier, '1abc', false],
  ['identifier', validators.identifier, '_abc', false],
  ['identifier', validators.identifier, 'ab c', false],
  ['identifier', validators.identifier, 'ab.c', false],
  ['email', validators.email, 'jane.doe+tag@example.com', true],
  ['email', validators.email, 'a@b.co', true],
  ['email', validators.email, 'a@sub.example.org', true],
  ['email', validators.email, 'a@localhost', false],
  ['email', validators.email, 'a@@b.co', false],
  ['email', validators.email, 'a b@c.co', false],
  ['email', validators.email, '@b.co', false],
  ['email', validators.email, 'a@b.', false],
  ['email', validators.email, 'a@-b.co', false],
  ['email', validators.email, 'plain', false],
  ['phone', validators.phone, '+14155550123', true],
  ['phone', validators.phone, '+44207946095', true],
  ['phone', validators.phone, '+04155550123', false],
  ['phone', validators.phone, '+1415555012', false],
  ['phone', validators.phone, '4155550123', true],
  ['phone', validators.phone, 4155550123, true],
  ['phone', validators.phone, '14155550123', true],
  ['phone', validators.phone, '1-415-555-0123', true],
  ['phone', validators.phone, '(415) 555-0123', true],
  ['phone', validators.phone, '(415)555-0123', true],
  ['phone', validators.phone, '415.555.0123', true],
  ['phone', validators.phone, '415 555 0123', true],
  ['phone', validators.phone, '415555012', false],
  ['phone', validators.phone, '24155550123', false],
  ['phone', validators.phone, '(415 555-0123', false],
  ['phone', validators.phone, '415--555-0123', false],
  ['shortOrLongCode', validators.shortOrLongCode, '12345', true],
  ['shortOrLongCode', validators.shortOrLongCode, 98765, true],
  ['shortOrLongCode', validators.shortOrLongCode, '02345', false],
  ['shortOrLongCode', validators.shortOrLongCode, '1234', false],
  ['shortOrLongCode', validators.shortOrLongCode, '123456', false],
  ['shortOrLongCode', validators.shortOrLongCode, '(415) 555-0123', true],
  ['shortOrLongCode', validators.shortOrLongCode, '+14155550123', true],
  ['ssn', validators.ssn, '123-45-6789', true],
  ['ssn', validators.ssn, '123456789', true],
  ['ssn', validators.ssn, '12345-6789', true],
  ['ssn', validators.ssn, '123-45-678', false],
  ['ssn', validators.ssn, '123 45 6789', false],
  ['ssn', validators.ssn, '1234-5-6789', false],
  ['date', validators.date, '31/12/2024', true],
  ['date', validators.date, '1/2/2024', true],
  ['date', validators.date, '29-02-2024', true],
  ['date', validators.date, '29/02/2023', false],
  ['date', validators.date, '31/04/2024', false],
  ['date', validators.date, '12/13/2024', false],
  ['date', validators.date, '0/1/2024', false],
  ['date', validators.date, '1/1/24', false],
  ['date', validators.date, '2024-01-01', false],
  ['date', validators.date, '01/01-2024', false],
  ['subdomain', validators.subdomain, 'sender', true],
  ['subdomain', validators.subdomain, 'a', true],
  ['subdomain', validators.subdomain, 'my-tenant-2', true],
  ['subdomain', validators.subdomain, 'a'.repeat(63), true],
  ['subdomain', validators.subdomain, 'a'.repeat(64), false],
  ['subdomain', validators.subdomain, 'Sender', false],
  ['subdomain', validators.subdomain, '-sender', false],
  ['subdomain', validators.subdomain, 'sender-', false],
  ['subdomain', validators.subdomain, 'send_er', false],
  ['subdomain', validators.subdomain, 'send.er', false],
  ['usState', validators.usState, 'CA', true],
  ['usState', validators.usState, 'ca', true],
  ['usState', validators.usState, 'new york', true],
  ['usState', validators.usState, 'Guam', true],
  ['usState', validators.usState, 'ZZ', false],
  ['usState', validators.usState, 'Ontario', false],
  ['nonZero', validators.nonZero, '0', false],
  ['nonZero', validators.nonZero, '000', false],
  ['nonZero', validators.nonZero, '0.00', false],
  ['nonZero', validators.nonZero, 0, false],
  ['nonZero', validators.nonZero, '10', true],
  ['nonZero', validators.nonZero, '0.01', true],
  ['day', validators.day, '1', true],
  ['day', validators.day, '01', true],
  ['day', validators.day, 31, true],
  ['day', validators.day, '0', false],
  ['day', validators.day, '32', false],
  ['day', validators.day, '1.5', false],
  ['month', validators.month, '12', true],
  ['month', validators.month, '07', true],
  ['month', validators.month, '13', false],
  ['month', validators.month, '00', false],
  ['year', validators.year, '2024', true],
  ['year', validators.year, 99, true],
  ['year', validators.year, '20x4', false],
  ['onlyAlpha', validators.onlyAlpha, 'abcXYZ', true],
  ['onlyAlpha', validators.onlyAlpha, 'abc1', false],
  ['onlyAlpha', validators.onlyAlpha, 'ab c', false],
  ['onlyNumeric', validators.onlyNumeric, '0123', true],
  ['onlyNumeric', validators.onlyNumeric, '12a', false],
  ['onlyAlphaOrNumeric', validators.onlyAlphaOrNumeric, 'abc123', true],
  ['onlyAlphaOrNumeric', validators.onlyAlphaOrNumeric, 'abc-123', false],
  ['whiteSpace', validators.whiteSpace, ' ', false],
  ['whiteSpace', validators.whiteSpace, ' \t\n', false],
  ['whiteSpace', validators.whiteSpace, ' a ', true],
  ['validOptionValidator', validators.validOptionValidator(['a', 2, { value: 'c' }]), 'a', true],
  ['validOptionValidator', validators.validOptionValidator(['a', 2, { value: 'c' }]), '2', true],
  ['validOptionValidator', validators.validOptionValidator(['a', 2, { value: 'c' }]), 2, true],
  ['validOptionValidator', validators.validOptionValidator(['a', 2, { value: 'c' }]), 'c', true],
  ['validOptionValidator', validators.validOptionValidator(['a', 2, { value: 'c' }]), 'b', false],
  ['validOptionValidator', validators.validOptionValidator(['a', 2, { value: 'c' }]), 'A', false],
  ['oneOf(phone, email)', validators.oneOf(validators.phone, validators.email), 'a@b.co', true],
  ['oneOf(phone, email)', validators.oneOf(validators.phone, validators.email), '4155550123', true],
  ['oneOf(phone, email)', validators.oneOf(validators.phone, validators.email), 'nope', false],
  ['oneOf()', validators.oneOf(), 'anything', false],
];

describe.each(table)('%s', (_name, validate, value, expected) => {
  it(`${expected ? 'passes' : 'fails'} ${JSON.stringify(value)}`, () => {
    const error = validate(value);
    if (expected) {
      expect(error).toBeNull();
    } else {
      expect(error).toEqual({ key: expect.any(String), message: expect.stringMatching(/^[A-Z].*\.$/) });
    }
  });
});

describe('error keys', () => {
  it.each([
    ['decimal', validators.decimal('x')],
    ['integer', validators.integer('x')],
    ['integer', validators.number('x')],
    ['minValue', validators.minValue(2)('1')],
    ['maxValue', validators.maxValue(2)('3')],
    ['range', validators.range(2, 3)('4')],
    ['oneOf', validators.oneOf(validators.integer)('x')],
    ['invalidClientId', validators.invalidClientId([-1])],
    ['atLeastOneHasValue', validators.atLeastOneHasValue(['a'])({ a: '' })],
  ])('the error is keyed %s', (key, error) => {
    expect(error?.key).toBe(key);
  });

  it('words the bounds in plain English', () => {
    expect(validators.minValue(3)('1')?.message).toBe('Enter a value of 3 or more.');
    expect(validators.maxValue(3, false)('3')?.message).toBe('Enter a value less than 3.');
    expect(validators.range(1, 9)('10')?.message).toBe('Enter a value from 1 to 9.');
  });
});

describe('invalidClientId', () => {
  it.each([
    [[-1], false],
    [['-1'], false],
    [[-1, -1], false],
    [[-1, 5], true],
    [[5], true],
    [[], true],
    [-1, true],
  ] as const)('%j passes: %s', (value, expected) => {
    expect(validators.invalidClientId(value) === null).toBe(expected);
  });
});

describe('atLeastOneHasValue', () => {
  const validate = validators.atLeastOneHasValue(['email', 'phone']);

  it.each([
    [{ email: 'a@b.co', phone: '' }, true],
    [{ email: null, phone: '415' }, true],
    [{ email: '', phone: 0 }, true],
    [{ email: '', phone: '' }, false],
    [{ email: '  ', phone: undefined }, false],
    [{}, false],
    [{ other: 'x' }, false],
    [{ email: [], phone: null }, false],
  ])('%j passes: %s', (values, expected) => {
    expect(validate(values) === null).toBe(expected);
  });
});

describe('validator properties', () => {
  const digits = fc.stringMatching(/^\d{1,12}$/);
  const nonDigitText = fc.string({ minLength: 1 }).filter((text) => /\D/.test(text));

  it('integer accepts every digit string and every natural number, and rejects any non-digit', () => {
    fc.assert(fc.property(digits, (text) => passes(validators.integer, text)));
    fc.assert(fc.property(fc.nat(), (number) => passes(validators.integer, number)));
    fc.assert(fc.property(nonDigitText, (text) => !passes(validators.integer, text)));
  });

  it('decimal and number accept digits with an optional fractional part', () => {
    fc.assert(
      fc.property(digits, fc.option(digits), (whole, fraction) => {
        const text = fraction === null ? whole : `${whole}.${fraction}`;
        return passes(validators.decimal, text) && passes(validators.number, text);
      }),
    );
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((text) => /[^\d.]/.test(text)),
        (text) => {
          return !passes(validators.decimal, text) && validators.number(text)?.key === 'integer';
        },
      ),
    );
  });

  it('minValue, maxValue and range agree with the numeric comparison', () => {
    const number = fc.integer({ min: -1000, max: 1000 });
    fc.assert(
      fc.property(number, number, number, fc.boolean(), (value, low, high, inclusive) => {
        const text = String(value);
        expect(passes(validators.minValue(low, inclusive), text)).toBe(
          inclusive ? value >= low : value > low,
        );
        expect(passes(validators.maxValue(high, inclusive), text)).toBe(
          inclusive ? value <= high : value < high,
        );
        expect(passes(validators.range(low, high, inclusive), value)).toBe(
          passes(validators.minValue(low, inclusive), value) &&
            passes(validators.maxValue(high, inclusive), value),
        );
      }),
    );
  });

  it('lengthRange and exactLength follow the length', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }), fc.nat(20), fc.nat(20), (text, a, b) => {
        const [min, max] = a <= b ? [a, b] : [b, a];
        expect(passes(validators.lengthRange(min, max), text)).toBe(text.length >= min && text.length <= max);
        expect(passes(validators.exactLength(a), text)).toBe(text.length === a);
      }),
    );
  });

  it('identifier needs a leading letter, then letters, digits, underscores or hyphens', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z][\w-]{0,20}$/), (text) => passes(validators.identifier, text)),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[\d_-][\w-]{0,20}$/), (text) => !passes(validators.identifier, text)),
    );
  });

  it('email accepts generated addresses and rejects a domain without a dot', () => {
    const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
    const local = fc.stringMatching(/^[A-Za-z0-9._%+-]{1,20}$/);
    fc.assert(
      fc.property(local, label, label, (user, host, tld) =>
        passes(validators.email, `${user}@${host}.${tld}`),
      ),
    );
    fc.assert(fc.property(local, label, (user, host) => !passes(validators.email, `${user}@${host}`)));
  });

  it('phone accepts US numbers in every separator style, and +country numbers with 11 digits', () => {
    const area = fc.stringMatching(/^\d{3}$/);
    const exchange = fc.stringMatching(/^\d{3}$/);
    const line = fc.stringMatching(/^\d{4}$/);
    const separator = fc.constantFrom('', ' ', '-', '.');
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        area,
        exchange,
        line,
        separator,
        (leadingOne, parentheses, a, e, l, s) => {
          const text = `${leadingOne ? `1${s}` : ''}${parentheses ? `(${a})` : a}${s}${e}${s}${l}`;
          return passes(validators.phone, text) && passes(validators.shortOrLongCode, text);
        },
      ),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{10}$/), (number) => passes(validators.phone, `+${number}`)),
    );
    fc.assert(fc.property(fc.stringMatching(/^\d{1,9}$/), (number) => !passes(validators.phone, number)));
  });

  it('shortOrLongCode accepts any 5-digit code not starting with 0', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10000, max: 99999 }), (code) => passes(validators.shortOrLongCode, code)),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^0\d{4}$/), (code) => !passes(validators.shortOrLongCode, code)),
    );
  });

  it('ssn accepts 3-2-4 digits with or without hyphens, and no other digit count', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{9}$/), fc.boolean(), fc.boolean(), (digitsOnly, first, second) => {
        const text = `${digitsOnly.slice(0, 3)}${first ? '-' : ''}${digitsOnly.slice(3, 5)}${second ? '-' : ''}${digitsOnly.slice(5)}`;
        return passes(validators.ssn, text);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,8}$|^\d{10,12}$/), (text) => !passes(validators.ssn, text)),
    );
  });

  it('date accepts every real day/month/year and rejects days past the end of the month', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(1000, 0, 1), max: new Date(9999, 11, 31), noInvalidDate: true }),
        fc.constantFrom('/', '-'),
        fc.boolean(),
        (date, separator, padded) => {
          const part = (n: number) => (padded ? String(n).padStart(2, '0') : String(n));
          const text = [part(date.getDate()), part(date.getMonth() + 1), date.getFullYear()].join(separator);
          return passes(validators.date, text);
        },
      ),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 9999 }), fc.constantFrom(4, 6, 9, 11), (year, month) => {
        return !passes(validators.date, `31/${month}/${year}`);
      }),
    );
  });

  it('subdomain accepts lowercase labels up to 63 characters and rejects any upper case letter', () => {
    const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/);
    fc.assert(fc.property(label, (text) => passes(validators.subdomain, text)));
    fc.assert(
      fc.property(label, fc.stringMatching(/^[A-Z]$/), fc.nat(), (text, upper, at) => {
        const index = at % (text.length + 1);
        return !passes(
          validators.subdomain,
          `${text.slice(0, index)}${upper}${text.slice(index)}`.slice(0, 63),
        );
      }),
    );
  });

  it('usState accepts every state name and abbreviation in any case', () => {
    fc.assert(
      fc.property(fc.constantFrom(...usStates), fc.boolean(), fc.boolean(), (state, useName, upper) => {
        const text = useName ? state.name : state.abbreviation;
        return passes(validators.usState, upper ? text.toUpperCase() : text.toLowerCase());
      }),
    );
  });

  it('nonZero fails exactly on all-zero values', () => {
    fc.assert(fc.property(fc.stringMatching(/^0{1,10}$/), (zeros) => !passes(validators.nonZero, zeros)));
    fc.assert(fc.property(fc.integer({ min: 1 }), (number) => passes(validators.nonZero, number)));
  });

  it('oneOf passes exactly when one of its validators passes', () => {
    const candidates = [validators.integer, validators.email, validators.onlyAlpha, validators.ssn];
    fc.assert(
      fc.property(fc.subarray(candidates, { minLength: 1 }), fc.string({ minLength: 1 }), (chosen, text) => {
        expect(passes(validators.oneOf(...chosen), text)).toBe(
          chosen.some((validate) => passes(validate, text)),
        );
      }),
    );
  });

  it('day and month accept exactly 1-31 and 1-12', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 99 }), (number) => {
        const text = String(number);
        expect(passes(validators.day, text)).toBe(number >= 1 && number <= 31);
        expect(passes(validators.month, text)).toBe(number >= 1 && number <= 12);
      }),
    );
  });

  it('onlyAlpha, onlyNumeric and onlyAlphaOrNumeric follow their character classes', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), (text) => {
        expect(passes(validators.onlyAlpha, text)).toBe(/^[A-Za-z]+$/.test(text));
        expect(passes(validators.onlyNumeric, text)).toBe(/^[0-9]+$/.test(text));
        expect(passes(validators.onlyAlphaOrNumeric, text)).toBe(/^[A-Za-z0-9]+$/.test(text));
      }),
    );
  });

  it('whiteSpace fails only values made of whitespace', () => {
    const blank = fc.stringMatching(/^[ \t\n\r]{1,10}$/);
    fc.assert(fc.property(blank, (text) => !passes(validators.whiteSpace, text)));
    fc.assert(
      fc.property(blank, fc.stringMatching(/^\S$/), blank, (before, visible, after) =>
        passes(validators.whiteSpace, `${before}${visible}${after}`),
      ),
    );
  });

  it('validOptionValidator passes exactly the listed options', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1 }),
        fc.string({ minLength: 1 }),
        (options, value) => {
          expect(passes(validators.validOptionValidator(options), value)).toBe(options.includes(value));
        },
      ),
    );
  });

  it('atLeastOneHasValue fails exactly when every named field is empty', () => {
    const fieldValue = fc.constantFrom<unknown>('', null, undefined, ' ', 'x', 0);
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'c'), fieldValue), (values) => {
        const filled = ['a', 'b'].some((name) => {
          const value = values[name];
          return value !== undefined && value !== null && String(value).trim() !== '';
        });
        expect(validators.atLeastOneHasValue(['a', 'b'])(values) === null).toBe(filled);
      }),
    );
  });
});

describe('validateSubdomainField', () => {
  it.each([
    [null, subdomainFieldMessages.required],
    [undefined, subdomainFieldMessages.required],
    ['', subdomainFieldMessages.required],
    ['ab', subdomainFieldMessages.length],
    ['a'.repeat(64), subdomainFieldMessages.length],
    ['AB', subdomainFieldMessages.length],
    ['Sender', subdomainFieldMessages.invalidSubdomain],
    ['-sender', subdomainFieldMessages.invalidSubdomain],
    ['sen der', subdomainFieldMessages.invalidSubdomain],
    ['abc', null],
    ['sender', null],
    ['a'.repeat(63), null],
  ])('%j gives %j', (value, message) => {
    expect(validateSubdomainField(value)?.message ?? null).toBe(message);
  });

  it('passes every valid subdomain of 3 to 63 characters', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/),
        (text) => validateSubdomainField(text) === null,
      ),
    );
  });
});

describe('subdomainFromInput', () => {
  it.each([
    ['sender', 'sender'],
    ['  sender ', 'sender'],
    ['Sender', 'sender'],
    ['SENDER.LOCALHOST', 'sender'],
    ['sender.localhost', 'sender'],
    ['sender.localhost.', 'sender'],
    ['sender.localhost:8080', 'sender'],
    ['http://sender.localhost:8080/', 'sender'],
    [' https://sender.localhost/c/account-summary?x=1#top ', 'sender'],
    ['sender.localhost/ABC-token', 'sender'],
    // Not the parent domain, or nothing before it: left for the field's checks to explain.
    ['localhost', 'localhost'],
    ['https://localhost:8080/', 'localhost'],
    ['sender.example.com', 'sender.example.com'],
    ['my-org.sender.localhost', 'my-org.sender'],
    ['', ''],
  ])('%j gives %j', (input, subdomain) => {
    expect(subdomainFromInput(input, 'localhost')).toBe(subdomain);
  });

  it('reads the parent domain without regard to case', () => {
    expect(subdomainFromInput('https://Sender.Example.COM/', 'example.com')).toBe('sender');
  });
});
