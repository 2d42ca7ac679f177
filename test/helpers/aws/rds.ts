// RDS on the query protocol: DescribeDBInstances, paged by MaxRecords/Marker, lists named as RDS names
// them (`<DBInstance>`, `<Tag>`, `<VpcSecurityGroupMembership>`). Modelled on the example of
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_DescribeDBInstances.html; throttling
// `Throttling`, HTTP 400 (https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/CommonErrors.html).
import { page } from './estate.js';
import type { StandInReply, StandInService } from './server.js';
import { queryError, queryResponse } from './xml.js';

const NS = 'http://rds.amazonaws.com/doc/2014-10-31/';
const MEMBERS = {
  DBInstances: 'DBInstance',
  TagList: 'Tag',
  VpcSecurityGroups: 'VpcSecurityGroupMembership',
  DBParameterGroups: 'DBParameterGroup',
  Subnets: 'Subnet',
};
const xml = (status: number, body: string): StandInReply => ({ status, type: 'text/xml', body });

export const rds: StandInService = {
  signingName: 'rds',
  action: (request) => request.params.get('Action') ?? '',
  handle(action, request) {
    if (action !== 'DescribeDBInstances')
      return this.error(400, 'InvalidAction', `Could not find operation ${action} for version 2014-10-31`);
    const { items, next } = page(
      request.estate.dbInstances ?? [],
      request.params.get('Marker'),
      request.params.get('MaxRecords'),
      request.pageSize,
    );
    return xml(
      200,
      queryResponse(action, NS, { DBInstances: items as Record<string, unknown>[], Marker: next }, MEMBERS),
    );
  },
  throttled: () => xml(400, queryError('Throttling', 'Rate exceeded')),
  error: (status, code, message) => xml(status, queryError(code, message)),
};
