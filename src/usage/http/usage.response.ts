import { ApiExtraModels, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ISO_TIME, nullable } from '../../openapi/schema-types';

@ApiSchema({ name: 'UsageTotals' })
export class UsageTotalsResponse {
  @ApiProperty({ type: 'integer', minimum: 0 }) inputTokens!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) outputTokens!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Executions that ended in the window, with or without reported usage' }) executions!: number;
}

@ApiSchema({ name: 'UsageGroup' })
export class UsageGroupResponse extends UsageTotalsResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'scripted',
    description: 'The provider id, model, conversation id or UTC day (YYYY-MM-DD); null for executions whose provider named no model',
  })
  key!: string | null;
}

@ApiSchema({ name: 'UsageBudget' })
export class UsageBudgetResponse {
  @ApiProperty({ type: 'integer', minimum: 1, description: "The tenant's TENANT_TOKEN_BUDGETS tokens per calendar month (UTC)" }) tokens!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'What is left of it this month (never below 0)' }) remaining!: number;
}

/** docs/api.md#usage-and-budgets: the tenant's usage in a window, summed and grouped. */
@ApiSchema({ name: 'UsageReport' })
@ApiExtraModels(UsageBudgetResponse)
export class UsageResponse {
  @ApiProperty({ ...ISO_TIME, description: 'The window start (inclusive)' }) from!: string;
  @ApiProperty({ ...ISO_TIME, description: 'The window end (exclusive)' }) to!: string;
  @ApiProperty({ type: () => UsageTotalsResponse, description: 'Over every execution that ended in the window, not just this page' })
  totals!: UsageTotalsResponse;
  @ApiProperty(nullable(UsageBudgetResponse, "The tenant's monthly budget and what is left of it this month; null without one"))
  budget!: UsageBudgetResponse | null;
  @ApiProperty({ type: () => [UsageGroupResponse], description: 'In ascending key order' }) groups!: UsageGroupResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'Opaque; pass as `cursor` (with the same groupBy) for the next groups. null on the last page' })
  nextCursor!: string | null;
}
