// EC2 on the query protocol (`ec2Query`): POST form `Action=Describe...&Version=2016-11-15`, XML answers
// with lowerCamel names and `<item>` lists, paged by MaxResults/NextToken (`nextToken`). Throttling is
// `RequestLimitExceeded`, HTTP 503. Bodies modelled on the Amazon EC2 API Reference examples:
// https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstances.html (and
// API_DescribeSecurityGroups, API_DescribeSubnets, API_DescribeRouteTables, API_DescribeNetworkAcls,
// API_DescribeVpcPeeringConnections.html); throttling: .../APIReference/throttling.html.
import { page } from './estate.js';
import type { StandInReply, StandInService } from './server.js';
import { ec2Error, ec2Response } from './xml.js';

const xml = (status: number, body: string): StandInReply => ({
  status,
  type: 'text/xml;charset=UTF-8',
  body,
});

/** action -> the estate's list, the response's list element, and the SDK member it fills */
const LISTS = {
  DescribeInstances: ['reservations', 'reservationSet', 'Reservations'],
  DescribeSecurityGroups: ['securityGroups', 'securityGroupInfo', 'SecurityGroups'],
  DescribeSubnets: ['subnets', 'subnetSet', 'Subnets'],
  DescribeRouteTables: ['routeTables', 'routeTableSet', 'RouteTables'],
  DescribeNetworkAcls: ['networkAcls', 'networkAclSet', 'NetworkAcls'],
  DescribeVpcPeeringConnections: ['vpcPeerings', 'vpcPeeringConnectionSet', 'VpcPeeringConnections'],
} as const;

export const ec2: StandInService = {
  signingName: 'ec2',
  action: (request) => request.params.get('Action') ?? '',
  handle(action, request) {
    const list = LISTS[action as keyof typeof LISTS];
    if (!list)
      return this.error(400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
    const [field, element, key] = list;
    const { items, next } = page(
      (request.estate[field] ?? []) as readonly object[],
      request.params.get('NextToken'),
      request.params.get('MaxResults'),
      request.pageSize,
    );
    return xml(200, ec2Response(action, element, key, items, next));
  },
  throttled: () => xml(503, ec2Error('RequestLimitExceeded', 'Request limit exceeded.')),
  error: (status, code, message) => xml(status, ec2Error(code, message)),
};
