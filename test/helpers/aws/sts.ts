// STS on the query protocol: GetCallerIdentity (whose key is this) and AssumeRole (a temporary key in the
// role's account, for the roles the estate lets the caller assume; AccessDenied, HTTP 403, for any other).
// Bodies modelled on https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html and
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html (Examples); throttling
// `Throttling`, HTTP 400, as https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html lists it.
import type { StandInReply, StandInService } from './server.js';
import { queryError, queryResponse } from './xml.js';

const NS = 'https://sts.amazonaws.com/doc/2011-06-15/';
const xml = (status: number, body: string): StandInReply => ({ status, type: 'text/xml', body });

export const sts: StandInService = {
  signingName: 'sts',
  action: (request) => request.params.get('Action') ?? '',
  handle(action, request) {
    if (action === 'GetCallerIdentity')
      return xml(
        200,
        queryResponse(action, NS, {
          Arn: request.callerArn,
          UserId: `AIDASTANDIN${request.account.slice(0, 8)}`,
          Account: request.account,
        }),
      );
    if (action === 'AssumeRole') {
      const roleArn = request.params.get('RoleArn') ?? '';
      const session = request.params.get('RoleSessionName') ?? '';
      const match = /^arn:aws:iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(roleArn);
      if (!match || !request.standIn.estate.assumable.includes(roleArn))
        return this.error(
          403,
          'AccessDenied',
          `User: ${request.callerArn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
        );
      const [, account, roleName] = match;
      const sessionArn = `arn:aws:sts::${account}:assumed-role/${roleName}/${session}`;
      const key = request.standIn.issueKey(account, sessionArn);
      return xml(
        200,
        queryResponse(action, NS, {
          Credentials: {
            AccessKeyId: key.accessKeyId,
            SecretAccessKey: key.secretAccessKey,
            SessionToken: key.sessionToken,
            Expiration: new Date(Date.now() + 3600_000),
          },
          AssumedRoleUser: { AssumedRoleId: `AROASTANDIN:${session}`, Arn: sessionArn },
        }),
      );
    }
    return this.error(400, 'InvalidAction', `Could not find operation ${action} for version 2011-06-15`);
  },
  throttled: () => xml(400, queryError('Throttling', 'Rate exceeded')),
  error: (status, code, message) => xml(status, queryError(code, message)),
};
