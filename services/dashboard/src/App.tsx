import { lazy, Suspense } from 'react';
import { Navigate, NavLink, Route, Routes, useNavigate } from 'react-router';
import { can, useLogout, useMe, useSwitchProject } from './api/auth';
import { ErrorBox, Loading, Shield } from './components/ui';
import { usePendingCount } from './pages/approvals-data';
import { SignIn } from './pages/SignIn';
import { lazyPage } from './lib/lazyPage';

const Agents = lazy(() => import('./pages/Agents'));
const AgentDetail = lazy(() => import('./pages/AgentDetail'));
const Sessions = lazy(() => import('./pages/Sessions'));
const SessionPage = lazyPage(() => import('./pages/SessionPage'));
// A session opened by link (an alert, a teammate): its code loads while sign-in is checked.
if (/^\/sessions\/[^/]+/.test(window.location.pathname)) void SessionPage.preload();
const Events = lazy(() => import('./pages/Events'));
const Guardrails = lazy(() => import('./pages/Guardrails'));
const PolicyEditor = lazy(() => import('./pages/PolicyEditor'));
const Approvals = lazy(() => import('./pages/Approvals'));
const ApiKeys = lazy(() => import('./pages/ApiKeys'));
const Users = lazy(() => import('./pages/Users'));
const Projects = lazy(() => import('./pages/Projects'));
const Webhooks = lazy(() => import('./pages/Webhooks'));

/** The app: sign-in when signed out, else the shell with the pages. */
export function App() {
  const { user, error } = useMe();
  if (user === undefined && !error) return <Loading what="Starting" />;
  if (!user) return error ? <ErrorBox error={error} /> : <SignIn />;
  const admin = can(user.role, 'admin');
  if (!user.projectId)
    // Someone without a project (every project of theirs was deleted, or they were removed): only
    // the Projects page, to create one.
    return (
      <div className="shell">
        <Nav />
        <main className="main">
          <Suspense fallback={<Loading />}>
            <Projects />
          </Suspense>
        </main>
      </div>
    );
  return (
    <div className="shell">
      <Nav />
      <main className="main">
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route path="/" element={<Navigate to="/sessions" replace />} />
            <Route path="/sign-in" element={<Navigate to="/sessions" replace />} />
            <Route path="/agents" element={<Agents />} />
            <Route path="/agents/:agentId" element={<AgentDetail />} />
            <Route path="/sessions" element={<Sessions />} />
            <Route path="/sessions/:sessionId" element={<SessionPage />} />
            <Route path="/events" element={<Events />} />
            <Route path="/guardrails" element={<Guardrails />} />
            <Route path="/guardrails/new" element={<PolicyEditor />} />
            <Route path="/guardrails/:policyId" element={<PolicyEditor />} />
            <Route path="/approvals" element={<Approvals />} />
            {admin && <Route path="/admin/keys" element={<ApiKeys />} />}
            {admin && <Route path="/admin/users" element={<Users />} />}
            {admin && <Route path="/settings/webhooks" element={<Webhooks />} />}
            <Route path="/settings/projects" element={<Projects />} />
            <Route
              path="*"
              element={
                <div className="empty">
                  Nothing here. <a href="/sessions">Sessions</a>
                </div>
              }
            />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}

/**
 * The project switcher: every project of the signed-in person; choosing one makes it current (a new
 * session cookie) and reloads every page's data from it.
 */
function ProjectSwitcher() {
  const { user, projects } = useMe();
  const switchTo = useSwitchProject();
  const navigate = useNavigate();
  if (projects.length === 0) return null;
  return (
    <div className="project-switcher">
      <select
        aria-label="Project"
        value={user?.projectId ?? ''}
        disabled={switchTo.isPending}
        onChange={(e) => switchTo.mutate(e.target.value, { onSuccess: () => void navigate('/sessions') })}
      >
        {!user?.projectId && <option value="">Choose a project</option>}
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function Nav() {
  const { user } = useMe();
  const logout = useLogout();
  const pending = usePendingCount();
  const link = ({ isActive }: { isActive: boolean }) => (isActive ? 'nav-link active' : 'nav-link');
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">
        <Shield />
        Agent Warden
      </div>
      <ProjectSwitcher />
      {user?.projectId && (
        <>
          <NavLink className={link} to="/sessions">
            Sessions
          </NavLink>
          <NavLink className={link} to="/agents">
            Agents
          </NavLink>
          <NavLink className={link} to="/events">
            Events
          </NavLink>
          <NavLink className={link} to="/guardrails">
            Guardrails
          </NavLink>
          <NavLink className={link} to="/approvals">
            Approvals
            {pending > 0 && (
              <span className="count" aria-label={`${pending} pending`}>
                {pending}
              </span>
            )}
          </NavLink>
        </>
      )}
      {can(user?.role, 'admin') && (
        <>
          <div className="nav-section">Admin</div>
          <NavLink className={link} to="/admin/keys">
            API keys
          </NavLink>
          <NavLink className={link} to="/admin/users">
            People
          </NavLink>
        </>
      )}
      <div className="nav-section">Settings</div>
      <NavLink className={link} to="/settings/projects">
        Projects
      </NavLink>
      {can(user?.role, 'admin') && (
        <NavLink className={link} to="/settings/webhooks">
          Webhooks
        </NavLink>
      )}
      <div className="nav-foot">
        <div className="who" title={user?.email}>
          <div>{user?.name || user?.email}</div>
          <div className="muted small">{user?.role}</div>
        </div>
        <button className="btn ghost small" onClick={() => logout.mutate()}>
          Sign out
        </button>
      </div>
    </nav>
  );
}
