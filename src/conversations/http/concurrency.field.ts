import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CONCURRENCY_POLICIES } from '../../common/concurrency-policy';

const message = `concurrency must be one of ${CONCURRENCY_POLICIES.join(', ')}`;

/** The optional `concurrency` of a request body (docs/api.md#concurrency); null reads as absent. */
export const ConcurrencyField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: String, enum: CONCURRENCY_POLICIES, nullable: true, description }),
    IsOptional(),
    IsIn(CONCURRENCY_POLICIES, { message }),
  );

/** The same field on a resource: present only when it was set. */
export const CONCURRENCY_SHOWN = (description: string) => ({ type: String, enum: CONCURRENCY_POLICIES, description });
