import { FollowOptions, follow } from './follow';
import { newIdempotencyKey } from './idempotency-key';
import { ClientOptions, Transport } from './transport';
import {
  Action,
  ActionList,
  ApprovalAnswer,
  Artifact,
  ArtifactList,
  CancelExecutionRequest,
  Conversation,
  CreateConversationRequest,
  EventPage,
  EventQuery,
  Execution,
  ExecutionSearchPage,
  ExecutionSearchQuery,
  FeedEvent,
  FeedPage,
  FeedQuery,
  InputAnswer,
  ProviderList,
  ProviderManifest,
  RuntimeInfo,
  StartExecutionRequest,
  TypedEvent,
  TERMINAL_EVENT_TYPES,
} from './types';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface StartResult {
  execution: Execution;
  /** True when the idempotency key had been used before and this is the original execution. */
  replayed: boolean;
}

const path = (template: TemplateStringsArray, ...ids: string[]) =>
  template.reduce((out, part, i) => out + part + (i < ids.length ? encodeURIComponent(ids[i]) : ''), '');

/** One method per route of docs/api.md, typed by docs/openapi.json, plus streams that survive dropped connections. */
export class RunledgerClient {
  private readonly http: Transport;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
  }

  async runtime(options: CallOptions = {}): Promise<RuntimeInfo> {
    return (await this.http.json<RuntimeInfo>('GET', '/v1/runtime', options)).data;
  }

  async providers(options: CallOptions = {}): Promise<ProviderManifest[]> {
    return (await this.http.json<ProviderList>('GET', '/v1/providers', options)).data.providers;
  }

  async provider(providerId: string, options: CallOptions = {}): Promise<ProviderManifest> {
    return (await this.http.json<ProviderManifest>('GET', path`/v1/providers/${providerId}`, options)).data;
  }

  async createConversation(body: CreateConversationRequest = {}, options: CallOptions = {}): Promise<Conversation> {
    return (await this.http.json<Conversation>('POST', '/v1/conversations', { ...options, body })).data;
  }

  async conversation(id: string, options: CallOptions = {}): Promise<Conversation> {
    return (await this.http.json<Conversation>('GET', path`/v1/conversations/${id}`, options)).data;
  }

  /**
   * Starts an execution. Without an `idempotencyKey` one is generated, so the start is retried
   * safely after a dropped connection or a 503/429: it never creates two executions.
   */
  async start(body: StartExecutionRequest, options: CallOptions = {}): Promise<StartResult> {
    const keyed = { ...body, idempotencyKey: body.idempotencyKey ?? newIdempotencyKey() };
    const { data, response } = await this.http.json<Execution>('POST', '/v1/executions', { ...options, body: keyed, safe: true });
    return { execution: data, replayed: response.headers.get('idempotent-replayed') === 'true' };
  }

  async execution(id: string, options: CallOptions = {}): Promise<Execution> {
    return (await this.http.json<Execution>('GET', path`/v1/executions/${id}`, options)).data;
  }

  async search(query: ExecutionSearchQuery = {}, options: CallOptions = {}): Promise<ExecutionSearchPage> {
    return (await this.http.json<ExecutionSearchPage>('GET', '/v1/executions', { ...options, query })).data;
  }

  /** Every execution the search matches, newest first, fetching the pages as they are needed. */
  async *searchAll(query: Omit<ExecutionSearchQuery, 'cursor'> = {}, options: CallOptions = {}): AsyncGenerator<Execution> {
    let cursor: string | undefined;
    do {
      const page = await this.search({ ...query, cursor }, options);
      yield* page.executions;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  async cancel(id: string, body: CancelExecutionRequest = {}, options: CallOptions = {}): Promise<Execution> {
    return (await this.http.json<Execution>('POST', path`/v1/executions/${id}:cancel`, { ...options, body })).data;
  }

  async actions(id: string, options: CallOptions = {}): Promise<Action[]> {
    return (await this.http.json<ActionList>('GET', path`/v1/executions/${id}/actions`, options)).data.actions;
  }

  async respond(id: string, actionId: string, answer: ApprovalAnswer | InputAnswer, options: CallOptions = {}): Promise<Action> {
    return (await this.http.json<Action>('POST', path`/v1/executions/${id}/actions/${actionId}:respond`, { ...options, body: answer })).data;
  }

  async artifacts(id: string, options: CallOptions = {}): Promise<Artifact[]> {
    return (await this.http.json<ArtifactList>('GET', path`/v1/executions/${id}/artifacts`, options)).data.artifacts;
  }

  /** One page of an execution's events (JSON replay). */
  async eventPage(id: string, query: EventQuery = {}, options: CallOptions = {}): Promise<EventPage> {
    return (await this.http.json<EventPage>('GET', path`/v1/executions/${id}/events`, { ...options, query })).data;
  }

  /**
   * The execution's events after `after`, live, each exactly once, ending after the terminal
   * event, however often the connection drops on the way.
   */
  events(id: string, options: FollowOptions & { after?: number } = {}): AsyncGenerator<TypedEvent> {
    return follow<TypedEvent>(
      this.http,
      {
        path: path`/v1/executions/${id}/events`,
        cursor: options.after ?? 0,
        cursorOf: (event) => event.sequence,
        isLast: (event) => TERMINAL_EVENT_TYPES.includes(event.type),
      },
      options,
    );
  }

  /** One page of the audit feed. */
  async feedPage(query: FeedQuery = {}, options: CallOptions = {}): Promise<FeedPage> {
    return (await this.http.json<FeedPage>('GET', '/v1/events', { ...options, query })).data;
  }

  /** The audit feed after `after` as stored so far, page by page; it ends where the log ends now. */
  async *feedAll(query: Omit<FeedQuery, 'after'> & { after?: number } = {}, options: CallOptions = {}): AsyncGenerator<FeedEvent> {
    let after = query.after ?? 0;
    for (;;) {
      const page = await this.feedPage({ ...query, after }, options);
      yield* page.events;
      if (page.events.length === 0 || page.lastPosition <= after) return;
      after = page.lastPosition;
    }
  }

  /** The audit feed after `after`, live and without end (abort it with the signal), each event once. */
  feed(options: FollowOptions & { after?: number } = {}): AsyncGenerator<FeedEvent> {
    return follow<FeedEvent>(this.http, { path: '/v1/events', cursor: options.after ?? 0, cursorOf: (event) => event.position, isLast: () => false }, options);
  }
}
