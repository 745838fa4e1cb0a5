import { render, screen } from '@testing-library/react';
import { lazy, Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { PageLoadBoundary } from './page-load-boundary.tsx';

describe('PageLoadBoundary', () => {
  it("says so and offers to try again when a page's script cannot be loaded", async () => {
    // React reports the caught error on the console; the page is what this test reads.
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const Unloadable = lazy(() =>
      Promise.reject(new TypeError('Failed to fetch dynamically imported module')),
    );
    render(
      <PageLoadBoundary>
        <Suspense fallback={<p>Loading…</p>}>
          <Unloadable />
        </Suspense>
      </PageLoadBoundary>,
    );
    expect(await screen.findByRole('heading', { name: 'This page could not be loaded' })).toBeDefined();
    expect(screen.getByRole('alert').textContent).toMatch(/cannot reach the server/);
    expect(screen.getByRole('button', { name: 'Try again' })).toBeDefined();
    vi.restoreAllMocks();
  });
});
