import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ExecutionsReadModel } from './executions.read-model';
import { ReadConsistency } from '../read-consistency';
import { executionView } from '../../executions/execution-view';
import { encodeCursor } from './search-cursor';
import { ExecutionSearchPage, SearchExecutionsQuery } from './search-executions.query';

@QueryHandler(SearchExecutionsQuery)
export class SearchExecutionsHandler implements IQueryHandler<SearchExecutionsQuery> {
  constructor(
    private readonly consistency: ReadConsistency,
    private readonly executions: ExecutionsReadModel,
  ) {}

  /** Newest first; one row more than the page says whether another page follows. */
  async execute({ tenantId, search }: SearchExecutionsQuery): Promise<ExecutionSearchPage> {
    await this.consistency.caughtUp();
    const rows = this.executions.search({ ...search, tenantId, limit: search.limit + 1 });
    const page = rows.slice(0, search.limit);
    return {
      executions: page.map((row) => executionView(row.state)),
      nextCursor: rows.length > search.limit ? encodeCursor(page[page.length - 1].position) : null,
    };
  }
}
