/** A busy indicator that screen readers announce; the visible text says what is happening. */
export function LoadingState({ label }: { label: string }) {
  return (
    <div className="loading-state" role="status" aria-live="polite">
      <div className="spinner" aria-hidden="true" />
      <p className="loading-state__label">{label}</p>
    </div>
  );
}
