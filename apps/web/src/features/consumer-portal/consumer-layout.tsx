import { Outlet } from 'react-router';
import { useSessionNavigation } from '../../lib/session/session-navigation.ts';
import { useSessionLifecycle } from '../../lib/session/use-session-lifecycle.ts';
import '../../lib/session/portal.css';

/**
 * Every page under `/c/`: the consumer's session is renewed at `refreshAt`, and an ended session
 * returns to the portal's start with the spec's message. Loaded with the first portal page, so
 * the entry page carries none of it.
 */
export function ConsumerPortalLayout() {
  useSessionNavigation();
  useSessionLifecycle('consumer');
  return <Outlet />;
}
