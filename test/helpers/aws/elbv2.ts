// Elastic Load Balancing v2 on the query protocol (signing name `elasticloadbalancing`):
// DescribeLoadBalancers, DescribeListeners (per load balancer), DescribeTargetGroups and
// DescribeTargetHealth (per target group), paged by PageSize/Marker (`NextMarker`). Modelled on the examples
// of https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeLoadBalancers.html,
// API_DescribeListeners.html, API_DescribeTargetGroups.html, API_DescribeTargetHealth.html; throttling
// `Throttling`, HTTP 400 (.../APIReference/CommonErrors.html).
import { page } from './estate.js';
import type { StandInReply, StandInService } from './server.js';
import { queryError, queryResponse } from './xml.js';

const NS = 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/';
const xml = (status: number, body: string): StandInReply => ({ status, type: 'text/xml', body });

export const elbv2: StandInService = {
  signingName: 'elasticloadbalancing',
  action: (request) => request.params.get('Action') ?? '',
  handle(action, request) {
    const { estate, params } = request;
    const paged = (list: readonly object[], key: string) => {
      const { items, next } = page(list, params.get('Marker'), params.get('PageSize'), request.pageSize);
      return xml(
        200,
        queryResponse(action, NS, { [key]: items as Record<string, unknown>[], NextMarker: next }),
      );
    };
    const lb = params.get('LoadBalancerArn');
    switch (action) {
      case 'DescribeLoadBalancers':
        return paged(estate.loadBalancers ?? [], 'LoadBalancers');
      case 'DescribeListeners':
        if (!lb)
          return this.error(400, 'ValidationError', 'A load balancer ARN or listener ARNs must be specified');
        return paged(
          (estate.listeners ?? []).filter((l) => l.LoadBalancerArn === lb),
          'Listeners',
        );
      case 'DescribeTargetGroups':
        return paged(
          (estate.targetGroups ?? []).filter((g) => !lb || g.LoadBalancerArns?.includes(lb)),
          'TargetGroups',
        );
      case 'DescribeTargetHealth': {
        const group = params.get('TargetGroupArn') ?? '';
        const health = estate.targetHealth?.[group];
        if (!health) return this.error(400, 'TargetGroupNotFound', `Target groups '${group}' not found`);
        return xml(
          200,
          queryResponse(action, NS, { TargetHealthDescriptions: health as Record<string, unknown>[] }),
        );
      }
      default:
        return this.error(400, 'InvalidAction', `Could not find operation ${action} for version 2015-12-01`);
    }
  },
  throttled: () => xml(400, queryError('Throttling', 'Rate exceeded')),
  error: (status, code, message) => xml(status, queryError(code, message)),
};
