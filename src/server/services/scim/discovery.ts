import "server-only";
import { SCIM_BASE_PATH, SCIM_MAX_COUNT, SCIM_MAX_OPERATIONS, SCIM_SCHEMAS } from "@/lib/scim";
import { ScimError } from "./errors";

// What the service says of itself (RFC 7644 §4): what it supports, its resource types, and the
// schemas of the attributes it keeps. Directories read these to set themselves up.

type Attribute = {
  name: string;
  type: "string" | "boolean" | "complex" | "dateTime" | "reference";
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: "readOnly" | "readWrite" | "immutable";
  returned?: "always" | "default";
  uniqueness?: "none" | "server";
  subAttributes?: Attribute[];
};

const attribute = (a: Attribute): Record<string, unknown> => ({
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...a,
  ...(a.subAttributes && { subAttributes: a.subAttributes.map(attribute) }),
});

const SCHEMAS = [
  {
    id: SCIM_SCHEMAS.user,
    name: "User",
    description: "A person of the organization",
    attributes: [
      { name: "userName", type: "string", required: true, uniqueness: "server" },
      { name: "externalId", type: "string", caseExact: true },
      {
        name: "name",
        type: "complex",
        subAttributes: [
          { name: "givenName", type: "string" },
          { name: "familyName", type: "string" },
          { name: "formatted", type: "string", mutability: "readOnly" },
        ],
      },
      { name: "displayName", type: "string" },
      {
        name: "emails",
        type: "complex",
        multiValued: true,
        subAttributes: [
          { name: "value", type: "string" },
          { name: "type", type: "string" },
          { name: "primary", type: "boolean" },
        ],
      },
      { name: "active", type: "boolean" },
      {
        name: "groups",
        type: "complex",
        multiValued: true,
        mutability: "readOnly",
        subAttributes: [
          { name: "value", type: "string", mutability: "readOnly" },
          { name: "display", type: "string", mutability: "readOnly" },
        ],
      },
    ] satisfies Attribute[],
  },
  {
    id: SCIM_SCHEMAS.group,
    name: "Group",
    description: "A group of the organization's directory; an org admin maps it to org roles",
    attributes: [
      { name: "displayName", type: "string", required: true, uniqueness: "server" },
      { name: "externalId", type: "string", caseExact: true },
      {
        name: "members",
        type: "complex",
        multiValued: true,
        subAttributes: [
          { name: "value", type: "string", mutability: "immutable" },
          { name: "display", type: "string", mutability: "readOnly" },
          { name: "$ref", type: "reference", mutability: "immutable" },
        ],
      },
    ] satisfies Attribute[],
  },
];

export function schemaDocuments(origin: string) {
  return SCHEMAS.map((schema) => ({
    schemas: [SCIM_SCHEMAS.schema],
    ...schema,
    attributes: schema.attributes.map(attribute),
    meta: { resourceType: "Schema", location: `${origin}${SCIM_BASE_PATH}/Schemas/${schema.id}` },
  }));
}

export function schemaDocument(origin: string, id: string) {
  const schema = schemaDocuments(origin).find((each) => each.id === id);
  if (!schema) throw new ScimError(404, `No schema ${id}.`);
  return schema;
}

export function resourceTypes(origin: string) {
  return [
    { id: "User", endpoint: "/Users", schema: SCIM_SCHEMAS.user, description: "People of the organization" },
    { id: "Group", endpoint: "/Groups", schema: SCIM_SCHEMAS.group, description: "Directory groups" },
  ].map((type) => ({
    schemas: [SCIM_SCHEMAS.resourceType],
    ...type,
    name: type.id,
    schemaExtensions: [],
    meta: { resourceType: "ResourceType", location: `${origin}${SCIM_BASE_PATH}/ResourceTypes/${type.id}` },
  }));
}

export function resourceType(origin: string, id: string) {
  const type = resourceTypes(origin).find((each) => each.id === id);
  if (!type) throw new ScimError(404, `No resource type ${id}.`);
  return type;
}

export function serviceProviderConfig(origin: string) {
  return {
    schemas: [SCIM_SCHEMAS.serviceProviderConfig],
    documentationUri: `${origin}/api/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_COUNT },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "Bearer token",
        description: "The organization's SCIM token (scim_…), as Authorization: Bearer.",
        primary: true,
      },
    ],
    maxOperations: SCIM_MAX_OPERATIONS,
    meta: { resourceType: "ServiceProviderConfig", location: `${origin}${SCIM_BASE_PATH}/ServiceProviderConfig` },
  };
}
