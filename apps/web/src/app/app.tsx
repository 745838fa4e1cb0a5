import type { AppConfig } from '@entry/domain';
import { BrowserRouter } from 'react-router';
import { SnackBar } from '../components/snack-bar/snack-bar.tsx';
import { UpdateToast } from '../components/update-toast/update-toast.tsx';
import { AppConfigProvider } from '../config/app-config-context.tsx';
import { appUpdate } from '../lib/app-update.ts';
import { AppRoutes } from './router.tsx';
import '../components/snack-bar/snack-bar.css';

export function App({ config }: { config: AppConfig }) {
  return (
    <AppConfigProvider config={config}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
      <div className="toast-stack">
        <SnackBar />
        <UpdateToast appUpdate={appUpdate} />
      </div>
    </AppConfigProvider>
  );
}
