import {
  type AppConfig,
  pageTexts,
  subdomainFieldMessages,
  subdomainFromInput,
  validateSubdomainField,
} from '@entry/domain';
import { type FormEvent, useId, useState } from 'react';
import { FormAlert } from '../../components/form-field.tsx';
import { browserNavigation } from '../../lib/navigation.ts';
import { lookUpAccessLazily } from './api/load-access-lookup.ts';
import { pickerTexts } from './domain-picker-texts.ts';
import { consumerPortalUrl } from './picker-start.ts';

type LookupProblem = 'notFound' | 'unreachable' | 'refused';

/**
 * The subdomain form: one field with the parent domain as its suffix, checked as the person types.
 * What people paste (spaces, capitals, the full domain, a web address of it) is reduced to the
 * subdomain before it is checked, and shown reduced once the field is left.
 */
export function DomainPickerForm({ config }: { config: AppConfig }) {
  const inputId = useId();
  const errorId = useId();
  const suffixId = useId();
  const [input, setInput] = useState('');
  const [touched, setTouched] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [problem, setProblem] = useState<LookupProblem | null>(null);
  const [pending, setPending] = useState(false);

  const subdomain = subdomainFromInput(input, config.domain);
  const validationError = validateSubdomainField(subdomain);
  const shownError =
    (touched || submitted) && validationError !== null
      ? validationError.message
      : problem === 'notFound'
        ? subdomainFieldMessages.notFound
        : null;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitted(true);
    setInput(subdomain);
    if (validationError !== null || pending) return;
    setProblem(null);
    setPending(true);
    const lookup = await lookUpAccessLazily(subdomain);
    if (lookup.kind === 'found') {
      browserNavigation.assign(consumerPortalUrl(config, subdomain));
      return;
    }
    setProblem(lookup.kind);
    setPending(false);
  }

  return (
    <form noValidate onSubmit={onSubmit}>
      <div className="field">
        <label className="field__label" htmlFor={inputId}>
          Domain
        </label>
        <div className={shownError === null ? 'field__control' : 'field__control field__control--invalid'}>
          <input
            id={inputId}
            className="field__input"
            name="subdomain"
            type="text"
            inputMode="url"
            autoComplete="off"
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            required
            aria-invalid={shownError !== null}
            aria-describedby={shownError === null ? suffixId : `${suffixId} ${errorId}`}
            value={input}
            onChange={(event) => {
              setInput(event.target.value);
              setProblem(null);
            }}
            onBlur={() => {
              setTouched(true);
              setInput(subdomain);
            }}
          />
          <span className="field__suffix" id={suffixId}>
            .{config.domain}
          </span>
        </div>
        {shownError !== null && (
          <p className="field__error" id={errorId} role="alert">
            {shownError}
          </p>
        )}
      </div>
      {problem === 'unreachable' && <FormAlert>{pickerTexts.lookupUnreachable}</FormAlert>}
      {problem === 'refused' && <FormAlert>{pickerTexts.lookupRefused}</FormAlert>}
      <button className="button button--block" type="submit" disabled={pending} aria-busy={pending}>
        Next
      </button>
      <p className="picker-hint">{pageTexts.domainPicker.letterHint(config.domain)}</p>
      <p className="picker-hint">{pageTexts.domainPicker.partnerHint}</p>
    </form>
  );
}
