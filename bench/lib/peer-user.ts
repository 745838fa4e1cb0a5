/** The one account the Better Auth peer signs up at start and the benchmark signs in with. */
export const peerUser = {
  email: 'bench@example.com',
  password: 'bench peer orchid lantern 7',
  name: 'Bench',
};
