import { median, newcombeDifference, wilsonInterval } from '../src/rate-intervals';

const r4 = (v: number) => Math.round(v * 1e4) / 1e4;

describe('wilsonInterval', () => {
  // Newcombe 1998 (Statistics in Medicine 17:857–872), table I, method 3 (score, no continuity correction).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i/%i → %f to %f', (x, n, low, high) => {
    const w = wilsonInterval(x, n)!;
    expect([r4(w.low), r4(w.high)]).toEqual([low, high]);
  });

  it('has no rate without observations and rejects impossible counts', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(5, 4)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 4)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 4)).toThrow(RangeError);
  });
});

describe('newcombeDifference', () => {
  // Newcombe 1998 (Statistics in Medicine 17:873–890), table II, method 10 (hybrid score).
  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [6, 7, 2, 7, 0.0582, 0.8062],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ])('%i/%i − %i/%i → %f to %f', (x1, n1, x2, n2, low, high) => {
    const d = newcombeDifference(x1, n1, x2, n2)!;
    expect([r4(d.low), r4(d.high)]).toEqual([low, high]);
    expect(d.estimate).toBeCloseTo(x1 / n1 - x2 / n2, 12);
  });

  it('is null when a side has no observations', () => {
    expect(newcombeDifference(1, 2, 0, 0)).toBeNull();
  });
});

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([])).toBeNull();
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
