import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CONFIG, Config } from '../../config/config';
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
    @Inject(CONFIG) private readonly config: Pick<Config, 'limits'>,
  ) {}

  /**
   * Newest first; one row more than the page says whether another page follows, and so does a
   * page cut short at MAX_PAGE_BYTES (docs/api.md#get-v1executions).
   */
  async execute({ tenantId, search }: SearchExecutionsQuery): Promise<ExecutionSearchPage> {
    await this.consistency.caughtUp();
    const { rows, truncated } = this.executions.search({ ...search, tenantId, limit: search.limit + 1 }, this.config.limits.maxPageBytes);
    const page = rows.slice(0, search.limit);
    return {
      executions: page.map((row) => executionView(row.state)),
      nextCursor: truncated || rows.length > search.limit ? encodeCursor(page[page.length - 1].position) : null,
    };
  }
}
