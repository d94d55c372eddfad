import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../shared/errors/error-catalogue.js';
import { compileLineFormat, DEFAULT_LINE_FORMAT, jsonLogLine, logLineTypeOf } from './log-line-format.js';

const event = {
  type: 'log',
  task: '8f1c2d',
  level: 'info',
  msg: 'epoch 3 done',
  metric: '',
  variant: '',
  worker: 'gpu-node-7',
  model_event: false,
  '@timestamp': '2024-06-10T06:13:23.010Z',
  timestamp: 1718000003000,
};

function failure(format: string): ApiError {
  try {
    compileLineFormat(format);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(format)}`);
}

describe('compileLineFormat', () => {
  it('renders the default format as in §6.2', () => {
    expect(compileLineFormat(DEFAULT_LINE_FORMAT)(event)).toBe('1718000003000 gpu-node-7 info epoch 3 done\n');
  });

  it('prints epoch ms for both asctime and timestamp', () => {
    expect(compileLineFormat('{timestamp}|{asctime}')(event)).toBe('1718000003000|1718000003000\n');
  });

  it('prints a missing field as an empty string', () => {
    expect(compileLineFormat('[{level}] {msg}')({ timestamp: 1 })).toBe('[] \n');
  });

  it('removes trailing newlines of the format and ends every line with one', () => {
    expect(compileLineFormat('{msg}\n\n')(event)).toBe('epoch 3 done\n');
    expect(compileLineFormat('\n')(event)).toBe('\n');
  });

  it('turns {{ and }} into literal braces', () => {
    expect(compileLineFormat('{{{level}}} {{msg}}')(event)).toBe('{info} {msg}\n');
  });

  it('keeps literal text that looks like a field name literal', () => {
    expect(compileLineFormat('msg: {msg}')(event)).toBe('msg: epoch 3 done\n');
  });

  it('answers 400/11 for an empty format', () => {
    const error = failure('');
    expect([error.entry.code, error.entry.subcode]).toEqual([400, 11]);
    expect(error.message).toBe('Missing required fields (line_format is required for plain text lines)');
  });

  it.each([
    ['{msg', "expected '}' before end of string"],
    ['msg}', "Single '}' encountered in format string"],
    ['{msg} {', "Single '{' encountered in format string"],
    ['{}', 'Replacement index 0 out of range for positional args tuple'],
    ['{0}', 'Replacement index 0 out of range for positional args tuple'],
    ['{msg!r}', 'conversions are not supported: {msg!r}'],
    ['{msg:>20}', 'format specifications are not supported: {msg:>20}'],
    ['{msg:{level}}', 'format specifications are not supported: {msg:{level}}'],
    ['{msg.upper}', 'attribute and index lookups are not supported: {msg.upper}'],
    ['{a{b}}', "unexpected '{' in field name"],
  ])('answers 400/16 for the malformed format %j', (format, detail) => {
    const error = failure(format);
    expect([error.entry.code, error.entry.subcode]).toEqual([400, 16]);
    expect(error.message).toBe(`Invalid value for fields (invalid line format): error=${detail}`);
  });

  it('answers 400/16 naming every undefined placeholder once', () => {
    const error = failure('{foo} {msg} {bar} {foo}');
    expect([error.entry.code, error.entry.subcode]).toEqual([400, 16]);
    expect(error.message).toBe(
      'Invalid value for fields (undefined placeholders in line format): placeholders=(foo, bar)',
    );
  });

  it('reports a syntax error before undefined placeholders', () => {
    expect(failure('{foo} {msg!s}').message).toContain('invalid line format');
  });
});

describe('jsonLogLine', () => {
  it('drops type and task, renames timestamp to asctime, compact JSON and a newline', () => {
    expect(jsonLogLine(event)).toBe(
      '{"level":"info","msg":"epoch 3 done","metric":"","variant":"","worker":"gpu-node-7","model_event":false,"@timestamp":"2024-06-10T06:13:23.010Z","asctime":1718000003000}\n',
    );
  });
});

describe('logLineTypeOf', () => {
  it('is json for json in any case or absent, text otherwise', () => {
    expect(logLineTypeOf(undefined)).toBe('json');
    expect(logLineTypeOf('JSON')).toBe('json');
    expect(logLineTypeOf('text')).toBe('text');
    expect(logLineTypeOf('csv')).toBe('text');
  });
});
