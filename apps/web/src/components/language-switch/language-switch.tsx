import { type Language, languages } from '@entry/domain';
import { chooseLanguage, useLanguage, useTexts } from '../../i18n/language.ts';
import { layoutTexts } from '../auth-layout/layout-texts.ts';

/** Each language's name in its own words, whatever the page's language. */
const ownNames: Record<Language, string> = { en: 'English', es: 'Español' };

/** English | Español: the consumer pages' languages, the one shown pressed; the choice holds for the tab. */
export function LanguageSwitch() {
  const shown = useLanguage();
  const texts = useTexts('layout', layoutTexts);
  return (
    <fieldset className="language-switch">
      <legend className="visually-hidden">{texts.languages}</legend>
      {languages.map((language) => (
        <button
          key={language}
          type="button"
          lang={language}
          className="language-switch__option"
          aria-pressed={language === shown}
          onClick={() => void chooseLanguage(language)}
        >
          {ownNames[language]}
        </button>
      ))}
    </fieldset>
  );
}
