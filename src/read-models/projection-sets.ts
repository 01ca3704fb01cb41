import { Projection } from './projection';
import { PROJECTIONS } from './projections';
import { webhooksProjection } from './webhooks/webhooks.projection';

/**
 * The projections of each read-model file, by a name the projector thread can be started with
 * (functions do not cross to a worker): the executions' file, and the webhooks' of its own.
 */
export const PROJECTION_SETS = {
  main: PROJECTIONS,
  webhooks: [webhooksProjection],
} satisfies Record<string, readonly Projection[]>;

export type ProjectionSetName = keyof typeof PROJECTION_SETS;
