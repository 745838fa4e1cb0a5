import { Secret, TOTP } from 'otpauth';

/** A clock the test can move, like the portal server's. */
interface MovableClockLike {
  now(): Date;
  advanceMinutes(minutes: number): void;
}

/**
 * An authenticator app for a test account: RFC 6238 codes of its secret (30-second steps), computed
 * with otpauth from the server's clock. The server accepts each step once and one step either side
 * of now, so the app hands out steps in order and, when the next free one is too far ahead, moves
 * the server's clock half a minute rather than wait for it.
 */
export class Authenticator {
  readonly secret: string;
  #lastStep = Number.NEGATIVE_INFINITY;

  constructor(secret: string) {
    this.secret = secret.replace(/\s+/g, '');
  }

  #totp(): TOTP {
    return new TOTP({ secret: Secret.fromBase32(this.secret), period: 30, digits: 6, algorithm: 'SHA1' });
  }

  /** The code of the next step the server has not seen, at the server's `clock`. */
  nextCode(clock: MovableClockLike): string {
    const totp = this.#totp();
    let now = totp.counter({ timestamp: clock.now().getTime() });
    while (this.#lastStep + 1 > now + 1) {
      clock.advanceMinutes(0.5);
      now = totp.counter({ timestamp: clock.now().getTime() });
    }
    const step = Math.max(now, this.#lastStep + 1);
    this.#lastStep = step;
    return totp.generate({ timestamp: step * 30_000 });
  }

  /** The code at the real time, for a server on the real clock that never moves. */
  codeNow(): string {
    return this.#totp().generate({ timestamp: Date.now() });
  }
}
