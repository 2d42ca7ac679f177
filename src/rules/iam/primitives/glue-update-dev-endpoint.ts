// glue:UpdateDevEndpoint: the caller adds its SSH key to an existing Glue development endpoint and logs into
// it, running as the endpoint's role. Needs an endpoint (DECISIONS "Primitives that need an existing resource").
// Method: Rhino Security Labs #20 "Updating an existing Glue Dev Endpoint"; Pacu iam__privesc_scan
// UpdateExistingGlueDevEndpoint.
import { intoExisting, serviceRoles } from '../primitive.js';

export const glueUpdateDevEndpoint = intoExisting(
  'UpdateDevEndpoint',
  'Rhino Security Labs, method "Updating an existing Glue Dev Endpoint" (glue:UpdateDevEndpoint); Pacu UpdateExistingGlueDevEndpoint',
  'glue-endpoint',
  ['glue:UpdateDevEndpoint'],
  serviceRoles('glue.amazonaws.com'),
);
