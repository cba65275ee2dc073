/** `compilePattern` (`src/regex-compile.ts`): a whole-pattern `(?i:…)` group becomes the `i` flag, nothing else changes. */
import { caseInsensitiveBody, compilePattern } from '../src/regex-compile';

describe('compilePattern', () => {
  test.each([
    ['(?i:send_?money|transfer_?(money|funds))', 'send_?money|transfer_?(money|funds)'],
    ['(?i:^(get|list)[_.-])', '^(get|list)[_.-]'],
    ['(?i:a\\)b)', 'a\\)b'],
    ['(?i:[)(]x)', '[)(]x'],
  ])('%s is compiled as its body with the i flag', (pattern, body) => {
    expect(caseInsensitiveBody(pattern)).toBe(body);
    const re = compilePattern(pattern);
    expect(re.source).toBe(body);
    expect(re.flags).toBe('i');
  });

  test.each(['(?i:a)|(?i:b)', '(?i:a)b', 'x(?i:a)', '(?i:a', '(?-i:a)', '(?:a)', 'abc'])(
    '%s is compiled unchanged, without flags',
    (pattern) => {
      expect(caseInsensitiveBody(pattern)).toBeUndefined();
      if (pattern === '(?i:a') expect(() => compilePattern(pattern)).toThrow(SyntaxError);
      else expect(compilePattern(pattern).flags).toBe('');
    },
  );

  test('a mixed-case tool name matches a pack-style pattern, every time and after many other names', () => {
    const re = compilePattern(
      '(?i:send_?money|transfer_?(money|funds|cash)|^transfer$|(^|[_.-])pay([_.-]|$))',
    );
    const names = ['send_money', 'get_balance', 'transferFunds', 'TRANSFER', 'stripe.pay', 'list_files'];
    const expected = [true, false, true, true, true, false];
    for (let k = 0; k < 500; k++) expect(names.map((n) => re.test(n))).toEqual(expected);
  });
});
