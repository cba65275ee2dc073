import { comparison } from './compare';

/** `gte`: a number `>=` the value, or on `riskLevel` a level at least as high. */
export const gte = comparison(true, '>=');
