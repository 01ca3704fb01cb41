import type { components, paths } from './generated/openapi';

/** The API's own types, named as docs/api.md names them; all of them come from docs/openapi.json. */
type Schemas = components['schemas'];

export type Execution = Schemas['Execution'];
export type ExecutionStatus = Execution['status'];
export type Conversation = Schemas['Conversation'];
export type Action = Schemas['Action'];
export type Artifact = Schemas['Artifact'];
export type ProviderManifest = Schemas['ProviderManifest'];
export type RuntimeInfo = Schemas['RuntimeInfo'];
export type ExecutionEvent = Schemas['Event'];
export type EventPage = Schemas['EventPage'];
export type FeedEvent = Schemas['FeedEvent'];
export type FeedPage = Schemas['FeedPage'];
export type ExecutionSearchPage = Schemas['ExecutionSearchPage'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type ProviderList = Schemas['ProviderList'];
export type ActionList = Schemas['ActionList'];
export type ArtifactList = Schemas['ArtifactList'];

export type StartExecutionRequest = Schemas['StartExecutionDto'];
export type CreateConversationRequest = Schemas['CreateConversationDto'];
export type CancelExecutionRequest = Schemas['CancelExecutionDto'];
export type ApprovalAnswer = Schemas['ApprovalAnswerDto'];
export type InputAnswer = Schemas['InputAnswerDto'];

export type ExecutionSearchQuery = NonNullable<paths['/v1/executions']['get']['parameters']['query']>;
export type EventQuery = NonNullable<paths['/v1/executions/{id}/events']['get']['parameters']['query']>;
export type FeedQuery = NonNullable<paths['/v1/events']['get']['parameters']['query']>;

export const TERMINAL_EVENT_TYPES: readonly string[] = ['run.completed', 'run.failed', 'run.cancelled'];

/** Each event type's `data`, so that a `switch` on `event.type` narrows `event.data`. */
export interface EventDataByType {
  'run.queued': Schemas['RunQueuedData'];
  'run.started': Schemas['RunStartedData'];
  'output.text.delta': Schemas['TextDeltaData'];
  'output.text.done': Schemas['TextDoneData'];
  'action.required': Schemas['ActionRequiredData'];
  'action.responded': Schemas['ActionRespondedData'];
  'artifact.created': Schemas['ArtifactCreatedData'];
  'provider.event': Schemas['ProviderEventData'];
  'run.completed': Schemas['RunCompletedData'];
  'run.failed': Schemas['RunFailedData'];
  'run.cancelled': Schemas['RunCancelledData'];
}

/** An execution's event with its `data` typed by its `type`. */
export type TypedEvent = { [T in keyof EventDataByType]: Omit<ExecutionEvent, 'type' | 'data'> & { type: T; data: EventDataByType[T] } }[keyof EventDataByType];

// The build fails when the document gains or loses an event type the map above does not name.
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const EVERY_EVENT_TYPE_IS_TYPED: SameKeys<keyof EventDataByType, ExecutionEvent['type']> = true;
