import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { MAX_BODY_DEPTH, walkJson } from '@agent-warden/contracts';
import { validationError } from './errors';

/** Set on a request whose raw body {@link noteCleanJsonBody} found free of escapes that need cleaning. */
const CLEAN_BODY = Symbol('cleanJsonBody');

const BACKSLASH_U = Buffer.from('\\u', 'latin1');

/**
 * True when the UTF-8 JSON text `buf` may hold a string or key that `cleanJson` (libs/contracts)
 * would change: it has a `\u0000` escape or a `\uD800`–`\uDFFF` escape (a surrogate, lone or in a
 * pair; hex digits in either case). When false, nothing in the parsed value needs cleaning: a raw
 * U+0000 byte is not valid JSON (`JSON.parse` refuses control characters), and UTF-8 cannot carry a
 * surrogate (Node's decoder turns such bytes into U+FFFD). It errs only towards true (`\\u0000`,
 * an escaped backslash before `u0000`, counts). Uses `Buffer.indexOf` (native): a few µs for a
 * 17 KB body, against a walk of every string of the parsed value.
 */
export function mayNeedCleaning(buf: Buffer): boolean {
  for (let i = buf.indexOf(BACKSLASH_U); i !== -1; i = buf.indexOf(BACKSLASH_U, i + 2)) {
    const a = buf[i + 2];
    if (a === undefined) return false;
    if (a === 0x30 /* 0 */ && buf[i + 3] === 0x30 && buf[i + 4] === 0x30 && buf[i + 5] === 0x30) return true;
    if ((a | 0x20) === 0x64 /* d or D */) {
      const b = buf[i + 3] ?? 0;
      // 8, 9, a–f, A–F
      if (b === 0x38 || b === 0x39 || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x66)) return true;
    }
  }
  return false;
}

/**
 * The `verify` option of `express.json()` (body-parser: called with the raw, decompressed body and
 * its charset before parsing) that lets {@link requestJsonSafety} skip cleaning a body with nothing
 * to clean: marks the request when the charset is UTF-8 and {@link mayNeedCleaning} is false.
 * Bodies in another charset (UTF-16 can carry lone surrogates as raw code units) are never marked.
 * With a `verify`, body-parser reads the body as bytes and decodes it in one piece (iconv-lite,
 * the same decoder, BOM stripped as before). Never throws.
 */
export function noteCleanJsonBody(
  req: IncomingMessage,
  _res: unknown,
  buf: Buffer,
  encoding: string | null,
): void {
  if (encoding === 'utf-8' && !mayNeedCleaning(buf))
    (req as IncomingMessage & { [CLEAN_BODY]?: true })[CLEAN_BODY] = true;
}

/**
 * Applies the contract's storage rule to every request (docs/decisions.md "What storage cannot
 * hold"; `walkJson` in libs/contracts): U+0000 and lone surrogates become U+FFFD in every string
 * and key of the parsed JSON body and of the query parameters, and a body nested deeper than
 * {@link MAX_BODY_DEPTH} levels is refused with 400 `validation_failed` naming the path where the
 * limit was crossed. The walk is iterative, so it cannot overflow the stack itself, and it runs
 * right after the body parser, before any route (or anything recursive) touches the body.
 *
 * Mount right after `express.json()`. Paths in `batchPaths` (`/v1/events`) carry a batch whose
 * items are measured one by one by their route, so that one over-deep event is rejected on its own
 * while the batch's valid events are stored: there the body is cleaned but not measured. When the
 * parser was given {@link noteCleanJsonBody} as `verify` and it found nothing to clean, the body is
 * only measured (and a batch body not walked at all): the walk's result would be the same value.
 *
 * @param options.batchPaths request paths (exact, as `req.path`) whose body depth the route checks.
 */
export function requestJsonSafety(options: { batchPaths?: readonly string[] } = {}): RequestHandler {
  const batchPaths = new Set(options.batchPaths ?? []);
  return (req, _res, next) => {
    if (req.url.includes('?')) {
      // express 5 parses the query on every read of `req.query` (a getter): keep the cleaned copy.
      const query = walkJson(req.query, Infinity, true).value;
      Object.defineProperty(req, 'query', {
        value: query,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    const body: unknown = req.body;
    if (body === undefined || body === null) return next();
    const batch = batchPaths.has(req.path);
    const clean = (req as typeof req & { [CLEAN_BODY]?: true })[CLEAN_BODY] !== true;
    if (batch && !clean) return next();
    const { value, tooDeepAt } = walkJson(body, batch ? Infinity : MAX_BODY_DEPTH, clean);
    req.body = value;
    if (tooDeepAt) {
      const path = tooDeepAt.join('.') || '(root)';
      return next(
        validationError(`the body is nested deeper than ${MAX_BODY_DEPTH} levels at ${path}`, [
          { path, message: `nested deeper than ${MAX_BODY_DEPTH} levels` },
        ]),
      );
    }
    next();
  };
}
