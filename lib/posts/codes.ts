/**
 * Share codes: 10 characters of [A-Za-z0-9] from crypto randomness, about 59.5 bits. Short
 * enough to type, far too many to enumerate: at a million guesses a second, finding one
 * given private post takes on the order of ten thousand years. No `-`/`_`, so a code
 * never ends a sentence oddly when pasted into chat.
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
