/** fast-check generators shared by the property tests of JSON handling. */
import fc from 'fast-check';

/**
 * JSON number literals, many that a double cannot hold (long digits, big exponents, -0, 1E400), and
 * the few exact ones the service really sends, given as `extra`.
 */
export function numberLiteral(extra: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    fc
      .tuple(
        fc.constantFrom('', '-'),
        fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,30}$/)),
        fc.option(fc.stringMatching(/^[0-9]{1,25}$/), { nil: undefined }),
        fc.option(
          fc.tuple(
            fc.constantFrom('e', 'E'),
            fc.constantFrom('', '+', '-'),
            fc.stringMatching(/^[0-9]{1,4}$/),
          ),
          { nil: undefined },
        ),
      )
      .map(
        ([sign, int, frac, exp]) =>
          `${sign}${int}${frac === undefined ? '' : `.${frac}`}${exp ? exp.join('') : ''}`,
      ),
    fc.constantFrom('1302.917413', '-0', '1E400', '9007199254740993', ...extra),
  );
}
