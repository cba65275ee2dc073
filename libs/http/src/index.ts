/** @agent-warden/http — shared express pieces: typed errors, RFC 9457 problems, API-key and session-cookie auth, health. */
export * from './errors';
export * from './problem';
export * from './auth';
export * from './session';
export * from './guard';
export * from './health';
export * from './server';
export * from './express-server';
export * from './parse';
export * from './json-safety';
export * from './method-not-allowed';
export * from './openapi';
export * from './lifecycle';
export * from './worker-health';
export * from './metrics';
export * from './webhook-signing';
