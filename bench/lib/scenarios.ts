import type { LoadRequest } from './load.ts';
import type { Population } from './population.ts';
import type { Demo } from './product.ts';

/** Hands out the items in turn, round and round. */
function rotation<T>(items: T[]): () => T {
  let next = 0;
  return () => {
    const item = items[next % items.length];
    next += 1;
    if (item === undefined) throw new Error('nothing to rotate');
    return item;
  };
}

/**
 * The product's scenarios, each as autocannon sends it; only successful answers are counted. The
 * sign-ins rotate over the population's links (without one, the demo's single link).
 */
export function productScenarios(demo: Demo, refreshTokens: string[], population?: Population) {
  const { subdomain, customerId } = demo.tenant;
  const nextDirect = rotation(population?.directTokens ?? [demo.identityTokens.direct]);
  const nextLetter = rotation(population?.last4SsnTokens ?? [demo.identityTokens.last4Ssn]);
  const last4Ssn = population?.last4Ssn ?? demo.verification.last4Ssn;
  const ignoreAnswer = () => undefined;
  return {
    accessLookup: { method: 'GET', path: `/api/auth/v1/access/${subdomain}` },
    identityTokenLookup: {
      method: 'GET',
      path: `/api/auth/v1/consumers/token/${demo.identityTokens.direct}`,
    },
    /** The read as the link guard sends it: `addAction=true` records the opening off the response path. */
    identityTokenOpened: {
      method: 'GET',
      path: `/api/auth/v1/consumers/token/${demo.identityTokens.direct}?addAction=true`,
    },
    directSignIn: {
      method: 'POST',
      path: '/api/auth/v1/consumer/sign-in/identity-token',
      chain: { bodyFor: () => ({ token: nextDirect(), customerId, subdomain }), onAnswer: ignoreAnswer },
    },
    /** Each refresh token works once: every connection chains the token each answer returns. */
    refresh: {
      method: 'POST',
      path: '/api/auth/v1/consumer/refresh',
      chain: {
        bodyFor(state) {
          state.refreshToken ??= refreshTokens.pop();
          return { refreshToken: state.refreshToken };
        },
        onAnswer(status, body, state) {
          state.refreshToken =
            status === 200 ? (JSON.parse(body) as { refreshToken: string }).refreshToken : undefined;
        },
      },
    },
    /** The demo tenant requires MFA: success is the restricted token, with a code mailed to the outbox. */
    lookupSignIn: {
      method: 'POST',
      path: '/api/auth/v1/consumer/sign-in/lookup',
      chain: {
        bodyFor: () => ({ customerId, subdomain, token: nextLetter(), last4Ssn }),
        onAnswer: ignoreAnswer,
      },
    },
    passwordSignIn: {
      method: 'POST',
      path: '/api/auth/v1/admin/sign-in',
      body: { username: demo.admin.username, password: demo.admin.password },
    },
  } satisfies Record<string, LoadRequest>;
}

export type ScenarioName = keyof ReturnType<typeof productScenarios>;
