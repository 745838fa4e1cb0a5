import { pageTexts } from '@entry/domain';
import { useState, useSyncExternalStore } from 'react';
import type { AppUpdate } from '../../lib/app-update.ts';

/**
 * The persistent "Update Available" toast: it stays until the person chooses Refresh, which
 * loads the new version at the root. The checks themselves start with `appUpdate.start()`.
 */
export function UpdateToast({ appUpdate }: { appUpdate: AppUpdate }) {
  const isUpdateWaiting = useSyncExternalStore(appUpdate.subscribe, appUpdate.isUpdateWaiting, () => false);
  const [isApplying, setIsApplying] = useState(false);

  if (!isUpdateWaiting) return null;
  return (
    <div className="snack-bar" role="alert">
      <span className="snack-bar__text">{pageTexts.updateToast.message}</span>
      <button
        type="button"
        className="snack-bar__action"
        disabled={isApplying}
        onClick={() => {
          setIsApplying(true);
          void appUpdate.applyUpdate();
        }}
      >
        {pageTexts.updateToast.action}
      </button>
    </div>
  );
}
