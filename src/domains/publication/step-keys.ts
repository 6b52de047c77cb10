const TID_ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';
const TID_LENGTH = 13;

/** Step 0 keeps the target's TID; step n is n later in the same order, still a valid record key. */
export function stepTid(tid: string, step: number): string {
  if (step === 0) return tid;
  let value = 0n;
  for (const char of tid) value = value * 32n + BigInt(TID_ALPHABET.indexOf(char));
  value += BigInt(step);
  let out = '';
  for (let i = 0; i < TID_LENGTH; i++) {
    out = TID_ALPHABET[Number(value % 32n)] + out;
    value /= 32n;
  }
  return out;
}
