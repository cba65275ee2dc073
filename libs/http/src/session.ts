import type { Request, Response } from 'express';
import jwt from 'jsonwebtoken';
import { parseCookie, stringifySetCookie } from 'cookie';

/** Name of the session cookie (contracts `SESSION_COOKIE`). */
export const SESSION_COOKIE_NAME = 'warden_session';

/**
 * Claims of a session token: `sub` = user id; `projectId` = the person's current project (null when
 * they belong to none). The role is never taken from the token: the guard reads the membership of
 * the current project on every request (docs/decisions.md "Projects and members").
 */
export interface SessionClaims {
  sub: string;
  projectId: string | null;
  email: string;
}

/** How session cookies are made. */
export interface SessionOptions {
  /** HS256 key; at least 32 characters. */
  secret: string;
  /** Lifetime of a token and its cookie, seconds (default 43 200 = 12 h). */
  ttlSeconds?: number;
  /**
   * `Secure` attribute: `true`, `false`, or `auto` (default): set when the request came over
   * https (`req.secure`, or `X-Forwarded-Proto: https` from a reverse proxy).
   */
  secure?: boolean | 'auto';
}

const ISSUER = 'agent-warden';
const AUDIENCE = 'agent-warden:dashboard';

/**
 * Session tokens of people (docs/architecture.md#auth): an HS256 JWT (jsonwebtoken) in the cookie
 * `warden_session` (httpOnly, SameSite=Lax, Path=/, Max-Age = the token's lifetime, Secure per
 * {@link SessionOptions.secure}). Stateless: a token stays valid until it expires, so the guard
 * re-reads the user on each request (a disabled user or a changed role takes effect at once).
 */
export class SessionTokens {
  readonly ttlSeconds: number;
  constructor(private readonly options: SessionOptions) {
    if (options.secret.length < 32) throw new Error('the session secret must be at least 32 characters');
    this.ttlSeconds = options.ttlSeconds ?? 12 * 3600;
  }

  /** A signed token for these claims. */
  sign(claims: SessionClaims): string {
    const { sub, ...rest } = claims;
    return jwt.sign(rest, this.options.secret, {
      algorithm: 'HS256',
      subject: sub,
      expiresIn: this.ttlSeconds,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
  }

  /** The claims of a valid, unexpired token; null for anything else (never throws). */
  verify(token: string): SessionClaims | null {
    try {
      const c = jwt.verify(token, this.options.secret, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      if (typeof c === 'string' || typeof c.sub !== 'string') return null;
      const { projectId, email } = c as Record<string, unknown>;
      if ((typeof projectId !== 'string' && projectId !== null) || typeof email !== 'string') return null;
      return { sub: c.sub, projectId, email };
    } catch {
      return null;
    }
  }

  /** The session token sent in the request's cookie, if any. */
  tokenOf(req: Request): string | undefined {
    const header = req.headers.cookie;
    return header ? parseCookie(header)[SESSION_COOKIE_NAME] : undefined;
  }

  /** Sets the session cookie holding `token`. */
  setCookie(req: Request, res: Response, token: string): void {
    res.append('Set-Cookie', this.cookie(req, token, this.ttlSeconds));
  }

  /** Clears the session cookie (same attributes, empty value, Max-Age=0). */
  clearCookie(req: Request, res: Response): void {
    res.append('Set-Cookie', this.cookie(req, '', 0));
  }

  private cookie(req: Request, value: string, maxAge: number): string {
    const s = this.options.secure ?? 'auto';
    const secure =
      s === 'auto'
        ? req.secure || req.headers['x-forwarded-proto']?.toString().split(',')[0]?.trim() === 'https'
        : s;
    return stringifySetCookie(SESSION_COOKIE_NAME, value, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      maxAge,
      secure,
    });
  }
}
