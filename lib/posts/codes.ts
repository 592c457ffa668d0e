/**
 * Share codes: 10 random characters of [A-Za-z0-9], about 59.5 bits: at a million guesses a
 * second, ten thousand years to find a given private post. No `-`/`_`, so a pasted code ends cleanly.
 */
import { randomInt } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const CODE_LENGTH = 10;

export function newShareCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

export const isShareCode = (value: string): boolean => /^[A-Za-z0-9]{4,64}$/.test(value);
