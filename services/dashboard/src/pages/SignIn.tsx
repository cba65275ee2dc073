import { useState, type FormEvent } from 'react';
import { useLogin } from '../api/auth';
import { ApiError } from '../api/client';
import { Shield } from '../components/ui';

/** Email and password sign-in; the session lives in an httpOnly cookie. */
export function SignIn() {
  const login = useLogin();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ email, password });
  };
  const err = login.error;
  return (
    <div className="signin">
      <form className="card signin-card" onSubmit={submit}>
        <div className="brand big">
          <Shield /> Agent Warden
        </div>
        <p className="muted">Sign in to watch sessions, tune guardrails and decide approvals.</p>
        <label>
          Email
          <input
            name="email"
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            required
            autoFocus
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </label>
        {err && (
          <div className="error-box" role="alert">
            {err instanceof ApiError && (err.status === 401 || err.status === 400)
              ? 'Wrong email or password.'
              : (err as Error).message}
          </div>
        )}
        <button className="btn primary" type="submit" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted small">
          The first admin comes from <code>WARDEN_INIT_ADMIN_EMAIL</code> /{' '}
          <code>WARDEN_INIT_ADMIN_PASSWORD</code>, or is printed by the first <code>npm start</code>.
        </p>
      </form>
    </div>
  );
}
