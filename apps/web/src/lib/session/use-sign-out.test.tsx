import { authTokenResultSchema, type Scope } from '@entry/domain';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { rememberLink } from '../pending-verification.ts';
import { authTokenResult, renderPortalPage } from './portal-test-kit.tsx';
import { useSignOut } from './use-sign-out.ts';

function SignOutButton({ scope }: { scope: Scope }) {
  const { signOut } = useSignOut(scope);
  return (
    <button type="button" onClick={() => void signOut()}>
      Sign out
    </button>
  );
}

/** A stored session of this kind: the portal test kit's result, typed as the client keeps it. */
const sessionOf = (accessType: 'Admin' | 'Customer' | 'Launched') =>
  authTokenResultSchema.parse(authTokenResult({ accessType }));

const location = () => screen.getByTestId('location').textContent;
const signedOut = { status: 204 };

describe('useSignOut', () => {
  it('returns the admin to the admin portal from a launched customer portal', async () => {
    const page = renderPortalPage(<SignOutButton scope="customer" />, {
      path: '/d/home',
      routes: { 'POST /api/auth/v1/customer/sign-out': signedOut },
    });
    page.api('admin').tokens.set(sessionOf('Admin'), { scope: 'admin' });
    page.api('customer').tokens.set(sessionOf('Launched'), { scope: 'customer' });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location()).toBe('/a/home'));
    expect(page.sent.map((call) => call.route)).toEqual(['POST /api/auth/v1/customer/sign-out']);
    expect(page.api('customer').tokens.get()).toBeNull();
    expect(page.api('admin').tokens.get()).not.toBeNull();
  });

  it("returns a customer user's own session to the customer sign-in", async () => {
    const page = renderPortalPage(<SignOutButton scope="customer" />, {
      path: '/d/home',
      routes: { 'POST /api/auth/v1/customer/sign-out': signedOut },
    });
    page.api('customer').tokens.set(sessionOf('Customer'), { scope: 'customer' });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location()).toBe('/d/sign-in'));
  });

  it("ends the customer portal the admin launched in this tab with the admin's sign-out", async () => {
    const page = renderPortalPage(<SignOutButton scope="admin" />, {
      path: '/a/home',
      routes: { 'POST /api/auth/v1/admin/sign-out': signedOut },
    });
    page.api('admin').tokens.set(sessionOf('Admin'), { scope: 'admin' });
    page.api('customer').tokens.set(sessionOf('Launched'), { scope: 'customer' });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location()).toBe('/a/sign-in'));
    expect(page.api('customer').tokens.get()).toBeNull();
  });

  /** A consumer signed in with a link of `signInType` remembered in the tab (none: no link), signing out. */
  async function consumerSignsOut(signInType: 'PostalCode' | 'Direct' | null) {
    const page = renderPortalPage(<SignOutButton scope="consumer" />, {
      path: '/c/account-summary',
      routes: { 'POST /api/auth/v1/consumer/sign-out': signedOut },
    });
    if (signInType !== null) {
      rememberLink(window.sessionStorage, {
        token: 'link-1',
        signInType,
        customerId: 1001,
        subdomain: 'sender',
      });
    }
    page.api('consumer').tokens.set(authTokenResultSchema.parse(authTokenResult({ accessType: 'Consumer' })));
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign out' }));
    return page;
  }

  it('returns a consumer to the question their link asks, not to the three questions', async () => {
    await consumerSignsOut('PostalCode');
    await waitFor(() => expect(location()).toBe('/c/verify-token'));
  });

  it('returns a consumer who came without a link to the three questions', async () => {
    await consumerSignsOut(null);
    await waitFor(() => expect(location()).toBe('/c/verify-identity'));
  });

  it('leads a consumer who came with a Direct link to the signed-out page, which says it alone', async () => {
    const page = await consumerSignsOut('Direct');
    await waitFor(() => expect(location()).toBe('/c/signed-out'));
    expect(page.notified).toEqual([]);
  });
});
