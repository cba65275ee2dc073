import { comparison } from './compare';

/** `lte`: a number `<=` the value, or on `riskLevel` a level at most as high. */
export const lte = comparison(false, '<=');
