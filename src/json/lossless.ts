/**
 * STUB — to be replaced by a real lossless parser (numbers keep the exact digits the service sent).
 * The signatures below are the contract other modules code against.
 */

/** A JSON number kept as the exact text the service sent. */
export class JsonNumber {
  constructor(readonly raw: string) {}
  toString(): string {
    return this.raw;
  }
  toJSON(): string {
    return this.raw;
  }
}

/** Parses JSON text; every number becomes a JsonNumber. Throws SyntaxError on invalid JSON. */
export function parseLossless(text: string): unknown {
  return JSON.parse(text, (_k, v) => (typeof v === 'number' ? new JsonNumber(String(v)) : v));
}

/** Serialises a value from parseLossless back to JSON text, writing JsonNumbers' digits verbatim. */
export function stringifyLossless(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent);
}
