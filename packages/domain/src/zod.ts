import { z } from 'zod';

// zod compiles a faster parser with `new Function` where it may. The app's Content-Security-Policy
// has no 'unsafe-eval', so in the browser it never may, and zod's probe for it is reported as a CSP
// violation on every page that builds a schema (Lighthouse best practices). Parsing without it is
// as fast for the small bodies of this API (bench: 1.0 against 1.2 µs for a lookup sign-in body).
// Every schema of this package is built after this line, as each imports `z` from here; the
// package.json lists this file as its one side effect, or the bundle would drop the call.
z.config({ jitless: true });

export { z };
