import { Query } from '@nestjs/cqrs';
import { ExecutionStatus } from '../../executions/domain/execution-state';
import { ExecutionView } from '../../executions/execution-view';

export interface ExecutionSearch {
  conversationId?: string;
  status?: ExecutionStatus;
  provider?: string;
  /** A `run.failed` code: only executions that failed with it. */
  errorCode?: string;
  createdAfter?: string;
  createdBefore?: string;
  limit: number;
  /** Decoded from the opaque cursor: the page starts below this position. */
  beforePosition?: number;
}

export interface ExecutionSearchPage {
  executions: ExecutionView[];
  nextCursor: string | null;
}

export class SearchExecutionsQuery extends Query<ExecutionSearchPage> {
  constructor(
    readonly tenantId: string,
    readonly search: ExecutionSearch,
  ) {
    super();
  }
}
