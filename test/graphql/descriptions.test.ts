// Issue 32 item 8: a schema people can browse. Every type, field, argument, input field and enum value
// carries a description (GraphiQL's documentation explorer shows them); this walks the whole schema.
import { buildSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { SCHEMA_SDL } from '../../app/graphql/schema.js';

/** Every schema coordinate without a description (Type, Type.field, Type.field(arg:), Enum.VALUE). */
function undescribed(sdl: string): string[] {
  const schema = buildSchema(sdl);
  const missing: string[] = [];
  const blank = (text: string | null | undefined) => !text || text.trim() === '';
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name))
      continue;
    // The root type is described by the schema's own description.
    if (blank(type.description) && type !== schema.getQueryType()) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type))
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args)
          if (blank(arg.description)) missing.push(`${type.name}.${field.name}(${arg.name}:)`);
      }
    if (isInputObjectType(type))
      for (const field of Object.values(type.getFields()))
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
    if (isEnumType(type))
      for (const value of type.getValues())
        if (blank(value.description)) missing.push(`${type.name}.${value.name}`);
  }
  return missing;
}

describe('GraphQL schema descriptions', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    expect(undescribed(SCHEMA_SDL)).toEqual([]);
  });

  it('finds what is left undescribed (the check can fail)', () => {
    const sdl = `
      "root" type Query { "x" a(b: Int): T, c: E }
      type T { d: Int }
      "e" enum E { "one" ONE TWO }`;
    expect(undescribed(sdl)).toEqual(['Query.a(b:)', 'Query.c', 'T', 'T.d', 'E.TWO']);
  });
});
