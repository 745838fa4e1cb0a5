import { authTokenResult } from '../../../lib/session/portal-test-kit.tsx';

/** Test answers of the second-factor calls, in the wire shapes of packages/domain. */

export const challengeId = '0b3d8f9e-6f0a-4c55-9a0e-2d6f1f0c7a11';

export function factorsBody(overrides: Record<string, unknown> = {}) {
  return {
    policy: 'required',
    totp: { enrolled: false },
    passkeys: [],
    recoveryCodesLeft: 0,
    secondFactorAt: null,
    ...overrides,
  };
}

export function passkeyBody(id: string, name: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    name,
    createdAt: '2026-03-02T10:00:00.000Z',
    lastUsedAt: null,
    backedUp: false,
    ...overrides,
  };
}

export const recoveryCodes = Array.from({ length: 10 }, (_, index) => `code${index}-abcde`);

export const pendingSession = { accessType: 'SecondFactorPending', hasRestrictedAccess: true };
export const enrolmentSession = { accessType: 'SecondFactorEnrolment', hasRestrictedAccess: true };

/** The full session a completed second factor answers. */
export const fullSession = () => authTokenResult({ refreshToken: 'upgraded' });

export function stepUpRefusal() {
  return {
    status: 403,
    body: {
      errorCode: 'NotPermitted',
      message: 'Confirm it is you with your second factor first.',
      errors: [],
      stepUpRequired: true,
    },
  };
}
