import { type AppConfig, pageTexts, subdomainFieldMessages, validateSubdomainField } from '@entry/domain';
import { type FormEvent, useId, useState } from 'react';
import { browserNavigation } from '../../lib/navigation.ts';
import { lookUpAccessLazily } from './api/load-access-lookup.ts';
import { consumerPortalUrl } from './picker-start.ts';

/** The subdomain form: one field with the parent domain as its suffix, checked as the person types. */
export function DomainPickerForm({ config }: { config: AppConfig }) {
  const inputId = useId();
  const errorId = useId();
  const suffixId = useId();
  const [subdomain, setSubdomain] = useState('');
  const [touched, setTouched] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [notFound, setNotFound] = useState(false);
  const [pending, setPending] = useState(false);

  const validationError = validateSubdomainField(subdomain);
  const shownError =
    (touched || submitted) && validationError !== null
      ? validationError.message
      : notFound
        ? subdomainFieldMessages.notFound
        : null;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitted(true);
    if (validationError !== null || pending) return;
    setPending(true);
    const lookup = await lookUpAccessLazily(subdomain);
    if (lookup.kind === 'found') {
      browserNavigation.assign(consumerPortalUrl(config, subdomain));
      return;
    }
    setNotFound(lookup.kind === 'notFound');
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
            value={subdomain}
            onChange={(event) => {
              setSubdomain(event.target.value);
              setNotFound(false);
            }}
            onBlur={() => setTouched(true)}
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
      <button className="button button--block" type="submit" disabled={pending} aria-busy={pending}>
        Next
      </button>
      <p className="picker-hint">{pageTexts.domainPicker.letterHint(config.domain)}</p>
      <p className="picker-hint">{pageTexts.domainPicker.partnerHint}</p>
    </form>
  );
}
