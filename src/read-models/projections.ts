import { actionsProjection } from './actions/actions.projection';
import { artifactsProjection } from './artifacts/artifacts.projection';
import { conversationsProjection } from './conversations/conversations.projection';
import { executionsProjection } from './executions/executions.projection';
import { usageProjection } from './usage/usage.projection';

/** Every projection the projector feeds, in the order it applies them; the CLI rebuilds and verifies the same list. */
export const PROJECTIONS = [executionsProjection, actionsProjection, artifactsProjection, conversationsProjection, usageProjection];
