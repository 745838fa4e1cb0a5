import { z } from 'zod';

// The Content-Security-Policy has no 'unsafe-eval', so zod's probe for `new Function` is reported
// as a violation on every page; without it, parsing this API's small bodies is as fast. Every schema
// imports `z` from here, and package.json lists this file as its one side effect.
z.config({ jitless: true });

export { z };
