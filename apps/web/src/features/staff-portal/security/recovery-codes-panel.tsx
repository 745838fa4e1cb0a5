import { productName } from '@entry/domain';
import { useMemo, useState } from 'react';
import { useFocusWhen } from '../../../lib/forms/use-checked-form.ts';

/**
 * Recovery codes, shown once (the server keeps only their hashes): copy, download, and go on only
 * once the person says they are saved. The heading takes the focus, so the codes are read first.
 */
export function RecoveryCodesPanel({
  codes,
  onSaved,
  continueLabel = 'I have saved them',
}: {
  codes: readonly string[];
  onSaved: () => void;
  continueLabel?: string;
}) {
  const headingRef = useFocusWhen<HTMLHeadingElement>(true);
  const [copied, setCopied] = useState<string | null>(null);
  const text = codes.join('\n');
  const download = useMemo(
    () => `data:text/plain;charset=utf-8,${encodeURIComponent(`${productName} recovery codes\n\n${text}\n`)}`,
    [text],
  );

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('The codes are copied.');
    } catch {
      setCopied('The codes could not be copied here. Download them, or select and copy them instead.');
    }
  }

  return (
    <section className="recovery-codes" aria-labelledby="recovery-codes-title">
      <h2 id="recovery-codes-title" className="section-title" tabIndex={-1} ref={headingRef}>
        Save your recovery codes
      </h2>
      <p>
        If you cannot use your passkey or authenticator app, each of these codes signs you in once. Keep them
        somewhere safe, such as a password manager. They are shown only now.
      </p>
      <ol className="recovery-codes__list" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="portal-actions">
        <button type="button" className="button button--secondary" onClick={copy}>
          Copy the codes
        </button>
        <a className="button button--secondary" href={download} download="recovery-codes.txt">
          Download the codes
        </a>
      </div>
      <p className="muted" role="status">
        {copied}
      </p>
      <div className="portal-actions">
        <button type="button" className="button" onClick={onSaved}>
          {continueLabel}
        </button>
      </div>
    </section>
  );
}
