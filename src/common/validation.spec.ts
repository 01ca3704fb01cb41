import { IsString } from 'class-validator';
import { FreeFormObject, dtoValidationPipe } from './validation';

class NoteDto {
  @IsString()
  title!: string;

  @FreeFormObject({ message: 'config must be an object' })
  config?: Record<string, unknown>;
}

describe('dtoValidationPipe', () => {
  const pipe = dtoValidationPipe();

  it('hands on the checked DTO, with the free-form object as parsed', async () => {
    const config = { steps: [{ text: 'hi' }] };
    const dto = (await pipe.transform({ title: 'a note', config }, { type: 'body', metatype: NoteDto })) as NoteDto;
    expect(dto).toBeInstanceOf(NoteDto);
    expect(dto).toEqual({ title: 'a note', config });
    expect(dto.config).toBe(config);
    expect(JSON.stringify(dto)).toBe('{"title":"a note","config":{"steps":[{"text":"hi"}]}}');
  });

  it('leaves route parameters and queries as they came (no conversion to their declared type)', async () => {
    await expect(pipe.transform('42', { type: 'param', data: 'id', metatype: Number })).resolves.toBe('42');
    await expect(pipe.transform('true', { type: 'query', data: 'flag', metatype: Boolean })).resolves.toBe('true');
    const query = { limit: '10' };
    await expect(pipe.transform(query, { type: 'query', metatype: Object })).resolves.toBe(query);
  });

  it('still refuses what the DTO does not declare', async () => {
    await expect(pipe.transform({ title: 'a note', extra: 1 }, { type: 'body', metatype: NoteDto })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
