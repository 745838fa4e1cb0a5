import { useState, useSyncExternalStore } from 'react';
import { useTexts } from '../../i18n/language.ts';
import type { AppUpdate } from '../../lib/app-update.ts';
import { layoutTexts } from '../auth-layout/layout-texts.ts';

/**
 * The persistent "Update Available" toast: it stays until the person chooses Refresh, which
 * loads the new version at the root. The checks themselves start with `appUpdate.start()`.
 */
export function UpdateToast({ appUpdate }: { appUpdate: AppUpdate }) {
  const isUpdateWaiting = useSyncExternalStore(appUpdate.subscribe, appUpdate.isUpdateWaiting, () => false);
  const [isApplying, setIsApplying] = useState(false);
  const texts = useTexts('layout', layoutTexts);

  if (!isUpdateWaiting) return null;
  return (
    <div className="snack-bar" role="alert">
      <span className="snack-bar__text">{texts.updateAvailable}</span>
      <button
        type="button"
        className="snack-bar__action"
        disabled={isApplying}
        onClick={() => {
          setIsApplying(true);
          void appUpdate.applyUpdate();
        }}
      >
        {texts.refresh}
      </button>
    </div>
  );
}
