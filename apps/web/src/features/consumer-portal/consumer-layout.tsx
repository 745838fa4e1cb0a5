import { Outlet } from 'react-router';
import { useOrganizationLookup } from '../../lib/organization.ts';
import { usePortalApi } from '../../lib/session/portal-api.ts';
import { useSessionNavigation } from '../../lib/session/session-navigation.ts';
import { useSessionLifecycle } from '../../lib/session/use-session-lifecycle.ts';
import '../../lib/session/portal.css';

/**
 * Every page under `/c/`: the consumer's session is renewed at `refreshAt`, an ended session
 * returns to the portal's start with the spec's message, and the organization's details are
 * looked up when no page of the tab has yet. Loaded with the first portal page, so the entry page
 * carries none of it.
 */
export function ConsumerPortalLayout() {
  useOrganizationLookup(usePortalApi('consumer').access);
  useSessionNavigation();
  useSessionLifecycle('consumer');
  return <Outlet />;
}
