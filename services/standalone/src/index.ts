/** @agent-warden/standalone — every service in one process with embedded substitutes (`npm start`). */
export { start, type RunningStandalone } from './start';
export { StandaloneConfig } from './config';
