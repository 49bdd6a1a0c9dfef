import { isRecord } from "./http-util";

const MAX_DEPTH = 8;

/**
 * A value that fits a JSON schema (the subset strict structured outputs use: object, array,
 * string, number, integer, boolean, null, enum, const, anyOf), every string being `text`. Enough
 * for the AI SDK's generateObject to parse and validate the mock's reply.
 */
function valueForSchema(schema: unknown, text: string, depth = 0): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return text;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const choices = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (choices && choices.length > 0) return valueForSchema(choices.find((choice) => !isNullSchema(choice)) ?? choices[0], text, depth + 1);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((candidate) => candidate !== "null") ?? types[0];
  switch (type) {
    case "object": {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valueForSchema(property, text, depth + 1)]));
    }
    case "array":
      return [valueForSchema(schema.items, text, depth + 1)];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? Math.max(1, Math.ceil(schema.minimum)) : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return text;
  }
}

function isNullSchema(schema: unknown): boolean {
  return isRecord(schema) && schema.type === "null";
}

/**
 * The reply as the request's `text.format` asks for it: JSON fitting the schema for `json_schema`,
 * `{reply}` for `json_object`; undefined for plain text.
 */
export function structuredReply(body: Record<string, unknown>, text: string): string | undefined {
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
  if (format?.type === "json_schema") return JSON.stringify(valueForSchema(format.schema, text));
  if (format?.type === "json_object") return JSON.stringify({ reply: text });
  return undefined;
}
