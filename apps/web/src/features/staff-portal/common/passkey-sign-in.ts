import type { SecondFactorsApi } from '@entry/client';
import { signWithPasskey } from './passkey-ceremony.ts';

/**
 * Signs in with a passkey: the server's challenge, the browser's answer, the server's judgement.
 * `usernameless`: a passkey alone, naming its user itself; else the second step or a step-up of
 * the stored session. The new tokens are stored by the API client.
 */
export async function signInWithPasskey(
  secondFactors: SecondFactorsApi,
  usernameless: boolean,
): Promise<void> {
  const mode = { usernameless };
  const { challengeId, options } = await secondFactors.passkeySignInOptions(mode);
  const response = await signWithPasskey(options);
  await secondFactors.passkeySignIn({ challengeId, response }, mode);
}
