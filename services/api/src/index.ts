/** @agent-warden/api — the read API (and later policies, approvals, dashboard). */
export { start } from './start';
export { ApiConfig, SignInEnv, initAdminOf } from './config';
export { loadOrCreateSessionSecret, SESSION_SECRET_FILE } from './session-secret';
export { apiRoutes, createApiApp, type ApiDeps } from './app';
export { bootstrapProject, type BootstrapResult } from './bootstrap';
export { dashboardRouter, DashboardEnv, DEFAULT_DASHBOARD_DIR } from './routes/static';
