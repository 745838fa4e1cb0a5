import type { AppConfig } from '@entry/domain';
import { describe, expect, it } from 'vitest';
import { activeLanguage, chooseLanguage } from '../../i18n/language.ts';
import { rememberedLink, rememberLink } from '../../lib/pending-verification.ts';
import { authToken, errorBody, fakeApi, identityToken, senderAccess } from '../../testing/fake-api.ts';
import { decideLinkLanding, type LinkParams } from './link-guard.ts';

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: ['admin'],
  dashDomainMarkers: ['dash'],
};
const token = '3f0c7a52-5a5e-4a8e-9d38-6f0e4c1a2b3c';
const tokenPath = `GET /api/auth/v1/consumers/token/${token}`;
const accessPath = 'GET /api/auth/v1/access/sender';
const signInPath = 'POST /api/auth/v1/consumer/sign-in/identity-token';

function link(target?: string, targetId?: string): LinkParams {
  return { token, target, targetId };
}

async function decide(params: LinkParams, routes: Parameters<typeof fakeApi>[0], hostSubdomain = 'sender') {
  const fake = fakeApi(routes);
  const decision = await decideLinkLanding(params, {
    hostSubdomain,
    config,
    api: fake.api,
    storage: window.sessionStorage,
  });
  return { decision, ...fake };
}

const directRoutes = {
  [tokenPath]: { status: 200, body: identityToken('Direct') },
  [accessPath]: { status: 200, body: senderAccess },
  [signInPath]: { status: 200, body: authToken() },
};

describe('decideLinkLanding: the consumer language', () => {
  const savedSpanish = {
    ...directRoutes,
    [tokenPath]: { status: 200, body: identityToken('Direct', { language: 'es' }) },
  };
  const signInBody = (sent: Awaited<ReturnType<typeof decide>>['sent']) =>
    sent.find((request) => `${request.method} ${request.url.pathname}` === signInPath)?.body;

  it("shows the consumer's saved language, remembers it for the tab, and asks for the code mail in it", async () => {
    const { sent } = await decide(link(), savedSpanish);
    expect(activeLanguage()).toBe('es');
    expect(window.sessionStorage.getItem('page-language')).toBe('es');
    expect(signInBody(sent)).toMatchObject({ language: 'es' });
  });

  it("keeps the tab's own choice (the switch, the letter's ?lang=) over the saved language", async () => {
    await chooseLanguage('en');
    const { sent } = await decide(link(), savedSpanish);
    expect(activeLanguage()).toBe('en');
    expect(signInBody(sent)).toMatchObject({ language: 'en' });
  });

  it('keeps the language shown where the consumer never chose one', async () => {
    const { sent } = await decide(link(), directRoutes);
    expect(activeLanguage()).toBe('en');
    expect(window.sessionStorage.getItem('page-language')).toBeNull();
    expect(signInBody(sent)).toMatchObject({ language: 'en' });
  });
});

describe('decideLinkLanding: Direct', () => {
  it.each([
    [undefined, undefined, 'http://sender.localhost:4173/c/account-summary?session-guid=session-123'],
    ['0', undefined, 'http://sender.localhost:4173/c/account-summary?session-guid=session-123'],
    ['1', undefined, 'http://sender.localhost:4173/c/documents?session-guid=session-123'],
    ['2', undefined, 'http://sender.localhost:4173/c/payment-options?session-guid=session-123'],
    ['3', '77', 'http://sender.localhost:4173/c/document-view/77?session-guid=session-123'],
    ['4', undefined, 'http://sender.localhost:4173/c/payment-method?session-guid=session-123'],
    ['5', '12', 'http://sender.localhost:4173/c/payment-method/12?session-guid=session-123'],
    ['6', undefined, 'http://sender.localhost:4173/c/?session-guid=session-123'],
    ['7', undefined, 'http://sender.localhost:4173/c/payment-options?session-guid=session-123'],
    ['99', undefined, 'http://sender.localhost:4173/c/account-summary?session-guid=session-123'],
  ])('target %s id %s signs in and opens %s', async (target, targetId, url) => {
    const { decision, sent } = await decide(link(target, targetId), directRoutes);
    expect(decision).toEqual({ kind: 'portal', url });
    expect(sent.map((request) => `${request.method} ${request.url.pathname}`)).toEqual([
      tokenPath,
      accessPath,
      signInPath,
    ]);
  });

  it('reads the token with addAction, signs in with its guid, customer and the subdomain, and keeps the session', async () => {
    const { sent } = await decide(link('4', '12'), directRoutes);
    expect(sent[0]?.url.searchParams.get('addAction')).toBe('true');
    expect(window.sessionStorage.getItem('consumer-token')).toContain('"accessType":"Consumer"');
    expect(window.sessionStorage.getItem('session-guid')).toBe('session-123');
    expect(window.sessionStorage.getItem('token-redirect')).toBe('payment-method/12');
    expect(window.sessionStorage.getItem('token-target')).toBe('4');
  });

  it('sends both reads before either answers', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const fake = fakeApi({
      [tokenPath]: async () => {
        await gate;
        return { status: 200, body: identityToken('None') };
      },
      [accessPath]: async () => {
        await gate;
        return { status: 200, body: senderAccess };
      },
    });
    const pending = decideLinkLanding(link(), {
      hostSubdomain: 'sender',
      config,
      api: fake.api,
      storage: window.sessionStorage,
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(fake.sent).toHaveLength(2);
    release();
    await pending;
  });

  it.each([
    ['an expired token', { status: 404, body: errorBody('TokenExpired') }, '/c/expired-link'],
    ['an unknown token', { status: 404, body: errorBody('ItemNotFound') }, '/c/expired-link'],
    ['a refused sign-in', { status: 400, body: errorBody('InvalidValue') }, '/c/failed-connection'],
  ])('after %s at sign-in goes to %s', async (_name, answer, path) => {
    const { decision } = await decide(link('1'), { ...directRoutes, [signInPath]: answer });
    expect(decision).toEqual({ kind: 'page', path });
    expect(window.sessionStorage.getItem('consumer-token')).toBeNull();
  });
});

describe('decideLinkLanding: verification types', () => {
  it.each(['Last4Ssn', 'PostalCode', 'DateOfBirth'])(
    '%s keeps the redirect and target and goes to verify-token',
    async (signInType) => {
      const { decision, sent } = await decide(link('3', '9'), {
        [tokenPath]: { status: 200, body: identityToken(signInType) },
        [accessPath]: { status: 200, body: senderAccess },
      });
      expect(decision).toEqual({
        kind: 'page',
        path: '/c/verify-token',
        pendingVerification: { token, signInType, customerId: 1001, subdomain: 'sender' },
      });
      expect(sent).toHaveLength(2);
      expect(window.sessionStorage.getItem('token-redirect')).toBe('document-view/9');
      expect(window.sessionStorage.getItem('token-target')).toBe('3');
      // Kept for the tab: sign-out and "Start again" come back to this question.
      expect(rememberedLink(window.sessionStorage)).toEqual({
        token,
        signInType,
        customerId: 1001,
        subdomain: 'sender',
      });
    },
  );

  it('a Direct link that signed in replaces a link kept earlier in the tab, for its sign-out page', async () => {
    rememberLink(window.sessionStorage, {
      token: 'older-link',
      signInType: 'PostalCode',
      customerId: 1001,
      subdomain: 'sender',
    });
    await decide(link(), directRoutes);
    expect(rememberedLink(window.sessionStorage)).toMatchObject({ token, signInType: 'Direct' });
  });

  it('a Direct link that could not sign in is not kept, nor is a link kept earlier', async () => {
    rememberLink(window.sessionStorage, {
      token: 'older-link',
      signInType: 'PostalCode',
      customerId: 1001,
      subdomain: 'sender',
    });
    await decide(link(), { ...directRoutes, [signInPath]: { status: 404, body: errorBody('TokenExpired') } });
    expect(rememberedLink(window.sessionStorage)).toBeNull();
  });

  it('None goes to verify-identity', async () => {
    const { decision, sent } = await decide(link(), {
      [tokenPath]: { status: 200, body: identityToken('None') },
      [accessPath]: { status: 200, body: senderAccess },
    });
    expect(decision).toMatchObject({ kind: 'page', path: '/c/verify-identity' });
    expect(sent).toHaveLength(2);
    expect(window.sessionStorage.getItem('token-redirect')).toBe('account-summary');
  });
});

describe('decideLinkLanding: failures go to the empty path', () => {
  it.each([
    ['an unknown token', { [tokenPath]: { status: 404, body: errorBody('ItemNotFound') } }],
    ['an unknown tenant', { [accessPath]: { status: 404, body: errorBody('ItemNotFound') } }],
    ['a malformed answer', { [tokenPath]: { status: 200, body: { guid: 1 } } }],
  ])('%s, and the page says it alone (no snack-bar)', async (_name, overrides) => {
    const { decision, notified } = await decide(link(), {
      [tokenPath]: { status: 200, body: identityToken('Direct') },
      [accessPath]: { status: 200, body: senderAccess },
      ...overrides,
    });
    expect(decision).toEqual({ kind: 'page', path: '/' });
    expect(notified).toEqual([]);
  });

  it('sends nothing when the host is not a tenant host', async () => {
    const fake = fakeApi({});
    const decision = await decideLinkLanding(link(), {
      hostSubdomain: null,
      config,
      api: fake.api,
      storage: window.sessionStorage,
    });
    expect(decision).toEqual({ kind: 'page', path: '/' });
    expect(fake.sent).toHaveLength(0);
  });

  it('sends nothing without a token', async () => {
    const fake = fakeApi({});
    const decision = await decideLinkLanding(
      { token: '', target: undefined, targetId: undefined },
      { hostSubdomain: 'sender', config, api: fake.api, storage: window.sessionStorage },
    );
    expect(decision).toEqual({ kind: 'page', path: '/' });
    expect(fake.sent).toHaveLength(0);
  });
});

describe('decideLinkLanding: a server that cannot be reached decides nothing', () => {
  const noConnection = () => {
    throw new TypeError('Failed to fetch');
  };
  it.each([
    ['no answer to the token read', { [tokenPath]: noConnection }],
    ['no answer to the tenant read', { [accessPath]: noConnection }],
    ['a 503 from the token read', { [tokenPath]: { status: 503 } }],
    ['a 500 from the tenant read', { [accessPath]: { status: 500 } }],
    ['no answer to the sign-in', { [signInPath]: noConnection }],
    ['a 502 from the sign-in', { [signInPath]: { status: 502 } }],
  ])('%s: the link is kept to be tried again, without a snack-bar', async (_name, overrides) => {
    const { decision, notified } = await decide(link('2'), { ...directRoutes, ...overrides });
    expect(decision).toEqual({ kind: 'unreachable' });
    expect(notified).toEqual([]);
    expect(window.sessionStorage.getItem('consumer-token')).toBeNull();
  });

  it('keeps a link remembered earlier when nothing could be read', async () => {
    const earlier = {
      token: 'older-link',
      signInType: 'PostalCode',
      customerId: 1001,
      subdomain: 'sender',
    } as const;
    rememberLink(window.sessionStorage, earlier);
    await decide(link(), { ...directRoutes, [tokenPath]: noConnection });
    expect(rememberedLink(window.sessionStorage)).toEqual(earlier);
  });
});
