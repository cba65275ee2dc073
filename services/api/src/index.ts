/** @agent-warden/api — the read API (and later policies, approvals, dashboard). */
export { start } from './start';
export { ApiConfig, SignInEnv, initAdminOf } from './config';
export { loadOrCreateSessionSecret, SESSION_SECRET_FILE } from './session-secret';
export { apiRoutes, createApiApp, type ApiDeps } from './app';
export { bootstrapProject, type BootstrapResult } from './bootstrap';
export {
  assertSecretsDirWritable,
  FIRST_START_SECRETS_FILE,
  handOverFirstStartSecrets,
  readFirstStartSecrets,
  type FirstStartSecrets,
} from './first-start-secrets';
export { dashboardRouter, DashboardEnv, DEFAULT_DASHBOARD_DIR } from './routes/static';
export { keepEventPartitions, startRetentionSweeper, type RetentionSweeper } from './retention-sweeper';
