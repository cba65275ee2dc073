import jwt from 'jsonwebtoken';
import { SessionTokens } from '../src/session';

const SECRET = 'a-test-session-secret-of-at-least-32-chars';

describe('SessionTokens: the current project in the cookie', () => {
  const tokens = new SessionTokens({ secret: SECRET });

  test('a token names the current project, or none', () => {
    const withProject = tokens.sign({ sub: 'u1', projectId: 'p1', email: 'a@example.com' });
    expect(tokens.verify(withProject)).toEqual({ sub: 'u1', projectId: 'p1', email: 'a@example.com' });
    const without = tokens.sign({ sub: 'u1', projectId: null, email: 'a@example.com' });
    expect(tokens.verify(without)).toEqual({ sub: 'u1', projectId: null, email: 'a@example.com' });
  });

  test('a token issued before projects (with a role claim) still verifies; the role is not read', () => {
    const old = jwt.sign({ projectId: 'p1', role: 'admin', email: 'a@example.com' }, SECRET, {
      algorithm: 'HS256',
      subject: 'u1',
      expiresIn: 60,
      issuer: 'agent-warden',
      audience: 'agent-warden:dashboard',
    });
    expect(tokens.verify(old)).toEqual({ sub: 'u1', projectId: 'p1', email: 'a@example.com' });
  });

  test('a token without a project claim, or signed with another key, is refused', () => {
    const noClaim = jwt.sign({ email: 'a@example.com' }, SECRET, {
      algorithm: 'HS256',
      subject: 'u1',
      issuer: 'agent-warden',
      audience: 'agent-warden:dashboard',
    });
    expect(tokens.verify(noClaim)).toBeNull();
    const other = new SessionTokens({ secret: 'another-secret-that-is-32-chars-long!' });
    expect(tokens.verify(other.sign({ sub: 'u1', projectId: 'p1', email: 'a@example.com' }))).toBeNull();
  });
});
