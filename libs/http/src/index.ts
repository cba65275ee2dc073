/** @agent-warden/http — shared express pieces: typed errors, RFC 9457 problems, API-key auth, health. */
export * from './errors';
export * from './problem';
export * from './auth';
export * from './health';
export * from './server';
export * from './parse';
export * from './openapi';
export * from './lifecycle';
