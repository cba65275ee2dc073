/** @agent-warden/api — the read API (and later policies, approvals, dashboard). */
export { start } from './start';
export { ApiConfig } from './config';
export { apiRoutes, createApiApp, type ApiDeps } from './app';
export { bootstrapProject, type BootstrapResult } from './bootstrap';
export { dashboardRouter, DashboardEnv, DEFAULT_DASHBOARD_DIR } from './routes/static';
