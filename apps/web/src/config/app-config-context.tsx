import type { AppConfig } from '@entry/domain';
import { createContext, type ReactNode, useContext } from 'react';

const AppConfigContext = createContext<AppConfig | null>(null);

export function AppConfigProvider({ config, children }: { config: AppConfig; children: ReactNode }) {
  return <AppConfigContext value={config}>{children}</AppConfigContext>;
}

export function useAppConfig(): AppConfig {
  const config = useContext(AppConfigContext);
  if (config === null) throw new Error('useAppConfig is used outside AppConfigProvider.');
  return config;
}

/** The configuration where a provider gives one: for the layout's parts that a page's test may render alone. */
export function useAppConfigIfProvided(): AppConfig | null {
  return useContext(AppConfigContext);
}
