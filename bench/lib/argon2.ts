/** The product's password hashing parameters (apps/server/src/services/passwords.ts). */
export const productArgon2Options = {
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;
