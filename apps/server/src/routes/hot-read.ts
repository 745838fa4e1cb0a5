/**
 * Route options of the reads a mailing day hammers (the access and identity-token lookups): kept
 * out of the request log (warnings and errors still go in), and answered with JSON.stringify. Their
 * answers are built by this code from typed rows, so checking each one against its schema again
 * (the zod serializer) only costs time; the schemas still describe them in the OpenAPI document.
 */
export const hotReadOptions = {
  logLevel: 'warn',
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
} as const;
