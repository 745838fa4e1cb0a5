import { connections, type LoadRequest, runsPerFigure } from './load.ts';
import type { Population } from './population.ts';
import { type Demo, directSignIn } from './product.ts';

/**
 * Refresh tokens a scenario starts with. Autocannon stops with a request in flight on every
 * connection and drops those answers, so each warm-up and each run strands one token per
 * connection (the server has already rotated it); what is left must still fill every connection.
 */
const refreshTokensNeeded = connections * (2 * runsPerFigure + 1);

/** Refresh tokens for the refresh scenario, enough for every run: one direct sign-in each through `baseUrl`. */
export async function refreshTokensFrom(baseUrl: string, demo: Demo): Promise<string[]> {
  const tokens: string[] = [];
  for (let index = 0; index < refreshTokensNeeded; index += 1) {
    tokens.push((await directSignIn(baseUrl, demo)).refreshToken);
  }
  return tokens;
}

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
  /** Each refresh token works once: a request takes one, and its answer puts the successor back. */
  const refreshPool = [...refreshTokens];
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
      perRequest: { bodyFor: () => ({ token: nextDirect(), customerId, subdomain }), onAnswer: ignoreAnswer },
    },
    refresh: {
      method: 'POST',
      path: '/api/auth/v1/consumer/refresh',
      perRequest: {
        bodyFor: () => ({ refreshToken: refreshPool.shift() }),
        onAnswer(status, body) {
          if (status === 200) refreshPool.push((JSON.parse(body) as { refreshToken: string }).refreshToken);
        },
      },
    },
    /** The demo tenant requires MFA: success is the restricted token, with a code mailed to the outbox. */
    lookupSignIn: {
      method: 'POST',
      path: '/api/auth/v1/consumer/sign-in/lookup',
      perRequest: {
        bodyFor: () => ({ customerId, subdomain, token: nextLetter(), last4Ssn }),
        onAnswer: ignoreAnswer,
      },
    },
    /**
     * One account: its budget lets 10 attempts be in flight at once (an attempt is paid for before
     * its hash), and 10 keep both hashing threads busy.
     */
    passwordSignIn: {
      method: 'POST',
      path: '/api/auth/v1/admin/sign-in',
      connections: 10,
      body: { username: demo.admin.username, password: demo.admin.password },
    },
  } satisfies Record<string, LoadRequest>;
}

export type ScenarioName = keyof ReturnType<typeof productScenarios>;
