import type { IdentifyRequest } from '@agent-warden/contracts';
import type { WardenApi } from './api';
import { WardenError } from './errors';
import { errorFields, type Logger } from './logger';
import type { AgentIdentityOptions, AgentVersionOptions, CapabilityInput } from './options';

/** The server ids of the running agent version. */
export interface Identity {
  agentId: string;
  agentVersionId: string;
  /** Project of the API key (absent for the disabled client). */
  projectId?: string;
}

/** What a {@link Registration} registers. */
export interface RegistrationInput {
  agent: AgentIdentityOptions;
  version?: AgentVersionOptions;
  capabilities?: CapabilityInput[];
}

/** The part of a registration the rest of the client uses (also met by the disabled client). */
export interface IdentitySource {
  /** The ids once registered, else `undefined`. */
  readonly identity: Identity | undefined;
  /** Resolves once registered (and capabilities declared); rejects with the registration's error. */
  ready(): Promise<void>;
  /** The ids, registering again first when the last attempt failed with a retryable error. */
  ensure(): Promise<Identity>;
}

/**
 * Registers the agent (`POST /v1/agents/identify`, retried by the transport) and then declares its
 * capabilities (`PUT .../capabilities`; a failure there is logged, not fatal). When an attempt
 * fails with a retryable error (service down), the next {@link Registration.ensure} tries again;
 * a non-retryable one (401, 403, 400) stays final.
 */
export class Registration implements IdentitySource {
  private ids: Identity | undefined;
  private attempt: Promise<Identity>;
  private settled: Promise<void>;
  private inFlight = true;
  private lastError: WardenError | undefined;

  /** Starts the first attempt at once. */
  constructor(
    private readonly api: WardenApi,
    private readonly input: RegistrationInput,
    private readonly logger: Logger,
  ) {
    [this.attempt, this.settled] = this.start();
  }

  get identity(): Identity | undefined {
    return this.ids;
  }

  /** Awaits the latest attempt and its capability declaration. Rejects with its `WardenError`. */
  async ready(): Promise<void> {
    await this.attempt;
    await this.settled;
  }

  /** The ids; registers again when the last attempt failed retryably. Rejects with the `WardenError`. */
  ensure(): Promise<Identity> {
    if (this.ids) return Promise.resolve(this.ids);
    if (!this.inFlight && this.lastError?.retryable !== false) [this.attempt, this.settled] = this.start();
    return this.attempt;
  }

  private start(): [Promise<Identity>, Promise<void>] {
    this.inFlight = true;
    const attempt = this.identify();
    attempt.catch(() => {}); // failures are reported through ready()/ensure(); never unhandled
    const settled = attempt.then(
      (ids) => this.declareCapabilities(ids),
      () => {},
    );
    return [attempt, settled];
  }

  private async identify(): Promise<Identity> {
    const body: IdentifyRequest = { agent: this.input.agent };
    if (this.input.version) body.version = this.input.version;
    try {
      const res = await this.api.identify(body);
      this.ids = { agentId: res.agentId, agentVersionId: res.agentVersionId, projectId: res.projectId };
      this.lastError = undefined;
      this.logger.debug('warden agent registered', { ...this.ids, version: res.version });
      return this.ids;
    } catch (e) {
      const err =
        e instanceof WardenError ? e : new WardenError('connection_failed', String(e), { cause: e });
      this.lastError = err;
      this.logger.error('warden registration failed', {
        agentKey: this.input.agent.key,
        ...errorFields(err),
      });
      throw err;
    } finally {
      this.inFlight = false;
    }
  }

  private async declareCapabilities(ids: Identity): Promise<void> {
    if (this.input.capabilities === undefined) return;
    try {
      await this.api.declareCapabilities(ids.agentId, ids.agentVersionId, {
        capabilities: this.input.capabilities,
      });
    } catch (e) {
      this.logger.warn('warden capability declaration failed', errorFields(e));
    }
  }
}
