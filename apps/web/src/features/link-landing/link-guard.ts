import type { ApiClient, KeyValueStorage } from '@entry/client';
import { isApiError, isUnreachable } from '@entry/client';
import {
  type AppConfig,
  buildPortalUrl,
  fallbackTargetCode,
  parseTargetCode,
  portalPathFor,
  storageKeys,
} from '@entry/domain';
import { paths } from '../../config/paths.ts';
import { activeLanguage, chooseLanguage, chosenLanguage } from '../../i18n/language.ts';
import { rememberOrganization } from '../../lib/organization.ts';
import { forgetLink, type PendingVerification, rememberLink } from '../../lib/pending-verification.ts';

export type LinkGuardApi = Pick<ApiClient, 'identityTokens' | 'access' | 'consumerAuth' | 'tokens'>;

export interface LinkParams {
  token: string | undefined;
  target: string | undefined;
  targetId: string | undefined;
}

export type LinkDecision =
  /** Leave for the portal address (a full page load). */
  | { kind: 'portal'; url: string }
  /** A page of this app, replacing the link in the history. */
  | { kind: 'page'; path: string; pendingVerification?: PendingVerification }
  /** The server could not be reached: nothing is decided, and the link stays to be tried again. */
  | { kind: 'unreachable' };

const toEmptyPath: LinkDecision = { kind: 'page', path: paths.domainPicker.href() };
const unreachable: LinkDecision = { kind: 'unreachable' };

function isExpiredOrUnknown(error: unknown): boolean {
  return (
    isApiError(error) &&
    (error.errorCode === 'TokenExpired' || error.errorCode === 'ItemNotFound' || error.status === 404)
  );
}

/**
 * The link guard (docs/rules.md#web): where a link `/{token}[/{target}[/{targetId}]]` opened on a
 * tenant host sends the person. It reads the identity token and the tenant together, signs in a
 * Direct token at once, and sends every other sign-in type to a verification step. The link is
 * remembered in the tab's `storage` so every way back leads to it. A server that cannot be reached
 * decides nothing.
 */
export async function decideLinkLanding(
  params: LinkParams,
  context: { hostSubdomain: string | null; config: AppConfig; api: LinkGuardApi; storage: KeyValueStorage },
): Promise<LinkDecision> {
  const { token, target, targetId } = params;
  const { hostSubdomain, config, api, storage } = context;
  if (token === undefined || token === '' || hostSubdomain === null) return toEmptyPath;

  let info: Awaited<ReturnType<LinkGuardApi['identityTokens']['get']>>;
  let access: Awaited<ReturnType<LinkGuardApi['access']['bySubdomain']>>;
  try {
    // The landing page explains every outcome itself (docs/decisions/026).
    [info, access] = await Promise.all([
      api.identityTokens.get(token, { addAction: true, explainedByPage: true }),
      api.access.bySubdomain(hostSubdomain, { explainedByPage: true }),
    ]);
  } catch (error) {
    if (isUnreachable(error)) return unreachable;
    forgetLink(storage);
    return toEmptyPath;
  }

  const rememberTarget = () => {
    api.tokens.setItem(storageKeys.tokenRedirect, portalPathFor(target, targetId));
    api.tokens.setItem(storageKeys.tokenTarget, String(parseTargetCode(target) ?? fallbackTargetCode));
  };
  rememberOrganization(access);
  // The consumer's saved language, unless this tab has chosen one (the switch, the letter's `?lang=`).
  // Its texts load while a Direct link signs in; a page shown here waits for them.
  const shown = info.language && chosenLanguage() === null ? chooseLanguage(info.language) : undefined;
  if (info.signInType !== 'Direct') await shown;
  const pendingVerification: PendingVerification = {
    token: info.guid,
    signInType: info.signInType,
    customerId: info.customerId,
    subdomain: access.subdomain,
    ...(info.lockedUntil ? { lockedUntil: info.lockedUntil.getTime() } : {}),
  };

  switch (info.signInType) {
    case 'Direct': {
      // Until it has signed in, no link is kept: one kept earlier is not this one.
      forgetLink(storage);
      let sessionGuid: string;
      try {
        const [result] = await Promise.all([
          api.consumerAuth.signInWithIdentityToken({
            token: info.guid,
            customerId: info.customerId,
            subdomain: access.subdomain,
            language: chosenLanguage() ?? activeLanguage(),
          }),
          shown,
        ]);
        sessionGuid = result.sessionGuid;
      } catch (error) {
        if (isUnreachable(error)) return unreachable;
        const page = isExpiredOrUnknown(error)
          ? paths.consumerPortal.expiredLink.href()
          : paths.consumerPortal.failedConnection.href();
        return { kind: 'page', path: page };
      }
      rememberTarget();
      // Kept so that a sign-out leads to a page that opens it again on request, never by itself.
      rememberLink(storage, pendingVerification);
      return {
        kind: 'portal',
        url: buildPortalUrl({ ...config, subdomain: access.subdomain, target, targetId, sessionGuid }),
      };
    }
    case 'None':
      // The spec names no target for None; kept too, so this link also lands on the page it names.
      rememberTarget();
      rememberLink(storage, pendingVerification);
      return { kind: 'page', path: paths.consumerPortal.verifyIdentity.href(), pendingVerification };
    default:
      rememberTarget();
      rememberLink(storage, pendingVerification);
      return { kind: 'page', path: paths.consumerPortal.verifyToken.href(), pendingVerification };
  }
}
