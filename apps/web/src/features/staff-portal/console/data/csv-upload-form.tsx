import { type FormEvent, type ReactNode, useId, useRef, useState } from 'react';
import { commonRefusalMessage, errorCodeOf } from '../../../../lib/session/sign-in-errors.ts';
import { problemsOf, refusalTextOf } from './console-data-api.ts';
import { ProblemList } from './problem-list.tsx';

const csvUploadMessages = {
  chooseFile: 'Choose a CSV file first.',
  working: 'Checking the file…',
} as const;

/**
 * A CSV file sent whole to a call that writes only when every row is valid: a refusal lists each
 * problem with its line, and the summary takes the focus so a screen reader reads it.
 */
export function CsvUploadForm({
  title,
  hint,
  submitLabel,
  extraFields,
  onUpload,
}: {
  title: string;
  hint: ReactNode;
  submitLabel: string;
  extraFields?: ReactNode;
  /** Sends the file's text; answers what to tell the person, or null when they canceled. */
  onUpload: (csv: string) => Promise<string | null>;
}) {
  const fileId = useId();
  const hintId = useId();
  const titleId = useId();
  const fileRef = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<{
    summary: string;
    problems: { field: string; message: string }[];
  } | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    setRefusal(null);
    const file = fileRef.current?.files?.[0];
    if (file === undefined) {
      setRefusal({ summary: csvUploadMessages.chooseFile, problems: [] });
      fileRef.current?.focus();
      return;
    }
    setBusy(true);
    try {
      setDone(await onUpload(await file.text()));
    } catch (error) {
      const listed = errorCodeOf(error) === 'InvalidImportFile' || errorCodeOf(error) === 'InvalidValue';
      setRefusal({
        summary: (listed ? refusalTextOf(error) : undefined) ?? commonRefusalMessage(error),
        problems: errorCodeOf(error) === 'InvalidImportFile' ? problemsOf(error) : [],
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form noValidate aria-labelledby={titleId} onSubmit={submit} className="console-section">
      <h2 id={titleId} className="section-title">
        {title}
      </h2>
      {refusal !== null && <ProblemList summary={refusal.summary} problems={refusal.problems} />}
      {done !== null && (
        <p className="notice" role="status">
          {done}
        </p>
      )}
      {extraFields}
      <div className="field">
        <label className="field__label" htmlFor={fileId}>
          CSV file
        </label>
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
        <input
          id={fileId}
          ref={fileRef}
          className="console-file"
          type="file"
          accept=".csv,text/csv"
          aria-describedby={hintId}
        />
      </div>
      <div className="portal-actions">
        <button className="button" type="submit" disabled={busy} aria-busy={busy}>
          {busy ? csvUploadMessages.working : submitLabel}
        </button>
      </div>
    </form>
  );
}
