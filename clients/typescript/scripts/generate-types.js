#!/usr/bin/env node
// Writes the client's types from Herald's public OpenAPI document, so that a change to a route
// reaches the client at the next build: `node generate-types.js <public.json> <out.ts>`.
// Date-times are the properties whose names end in `_at`: answers carry them as `Date` (the
// client converts them), request bodies accept a `Date` or an ISO 8601 string.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: generate-types.js <public.json> <out.ts>\n');
  process.exit(2);
}
writeFileSync(output, generate(JSON.parse(readFileSync(input, 'utf8'))));

function generate(document) {
  const schemas = document.components?.schemas ?? {};
  const requestSchemas = new Set();
  for (const operations of Object.values(document.paths ?? {}))
    for (const operation of Object.values(operations)) {
      for (const media of Object.values(operation?.requestBody?.content ?? {}))
        if (media.schema?.$ref) requestSchemas.add(refName(media.schema.$ref));
    }
  const lines = [
    '// Generated from the public OpenAPI document by scripts/generate-types.js; do not edit.',
    '// `npm run build` at the root of the repository writes it again.',
    '',
  ];
  for (const [name, schema] of Object.entries(schemas)) {
    if (schema.description) lines.push(`/** ${oneLine(schema.description)} */`);
    lines.push(`export interface ${name} ${objectType(schema, requestSchemas.has(name), '')}`, '');
  }
  return lines.join('\n');
}

function refName(ref) {
  return ref.split('/').pop();
}

function literal(value) {
  return typeof value === 'string' ? `'${value.replace(/[\\']/g, '\\$&')}'` : JSON.stringify(value);
}

function oneLine(text) {
  return String(text).replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim();
}

function objectType(schema, isRequest, indent) {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) return 'Record<string, unknown>';
  const body = entries.map(([key, property]) => {
    const doc = property.description ? `${indent}  /** ${oneLine(property.description)} */\n` : '';
    const optional = required.has(key) ? '' : '?';
    return `${doc}${indent}  ${key}${optional}: ${type(property, isRequest, indent + '  ', key)};`;
  });
  return `{\n${body.join('\n')}\n${indent}}`;
}

function type(schema, isRequest, indent, key) {
  const nullable = schema.nullable ? ' | null' : '';
  if (schema.$ref) return refName(schema.$ref) + nullable;
  if (schema.oneOf || schema.anyOf) {
    const parts = (schema.oneOf ?? schema.anyOf).map((part) =>
      part.enum && part.enum.length === 1 && part.enum[0] === null
        ? 'null'
        : type(part, isRequest, indent, key),
    );
    return [...new Set(parts)].join(' | ') + nullable;
  }
  if (schema.allOf)
    return schema.allOf.map((part) => type(part, isRequest, indent, key)).join(' & ');
  if (schema.enum) return schema.enum.map(literal).join(' | ') + nullable;
  switch (schema.type) {
    case 'string':
      if (schema.format === 'binary') return 'Blob' + nullable;
      if (key && key.endsWith('_at')) return (isRequest ? 'string | Date' : 'Date') + nullable;
      return 'string' + nullable;
    case 'number':
    case 'integer':
      return 'number' + nullable;
    case 'boolean':
      return 'boolean' + nullable;
    case 'array':
      return `Array<${type(schema.items ?? {}, isRequest, indent)}>` + nullable;
    case 'object':
      return objectType(schema, isRequest, indent) + nullable;
    default:
      return 'unknown';
  }
}
