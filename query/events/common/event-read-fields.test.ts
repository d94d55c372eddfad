import { describe, expect, it } from 'vitest';
import { bool, parseRequest } from '../../../shared/protocol/request-fields.js';
import { withTasksList } from './event-read-fields.js';

const schema = withTasksList({ model_events: bool({ default: false }) }, { maxItems: 2 });
const message = (data: Record<string, unknown>) => {
  try {
    parseRequest(schema, data);
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('withTasksList', () => {
  it('reads tasks, or task as its alias (a string counting as one id)', () => {
    expect(parseRequest(schema, { tasks: ['a', 'b'] })).toEqual({ tasks: ['a', 'b'], model_events: false });
    expect(parseRequest(schema, { task: ['a'], model_events: 1 })).toEqual({ tasks: ['a'], model_events: true });
    expect(parseRequest(schema, { task: 'a' })).toEqual({ tasks: ['a'], model_events: false });
    expect(parseRequest(schema, { tasks: ['x'], task: ['ignored'] }).tasks).toEqual(['x']);
  });

  it("answers ClearML's messages, naming the field tasks", () => {
    expect(message({})).toBe("Validation error (error for field 'tasks'. field is required!)");
    expect(message({ tasks: null })).toBe('Validation error (field is required!)');
    expect(message({ tasks: [] })).toBe("Validation error (value '[]' length is lower than allowed minimum '1'.)");
    expect(message({ tasks: ['a', 'b', 'c'] })).toBe(
      "Validation error (value '['a', 'b', 'c']' length is bigger than allowed maximum '2'.)",
    );
    expect(message({ tasks: 'a' })).toBe(`Validation error (value is wrong, expected type "list" 'a')`);
    expect(message({ tasks: [1] })).toBe('Validation error (all items must be instances of "str", and not "int".)');
  });
});
