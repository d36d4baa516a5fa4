import type { BrokerInfo as _sluice_v1_BrokerInfo, BrokerInfo__Output as _sluice_v1_BrokerInfo__Output } from '../../sluice/v1/BrokerInfo.js';
export interface DescribeClusterResponse {
    'cluster_id'?: (string);
    'controller_id'?: (number);
    'controller_epoch'?: (number);
    'brokers'?: (_sluice_v1_BrokerInfo)[];
    'metadata_endpoints'?: (string)[];
}
export interface DescribeClusterResponse__Output {
    'cluster_id': (string);
    'controller_id': (number);
    'controller_epoch': (number);
    'brokers': (_sluice_v1_BrokerInfo__Output)[];
    'metadata_endpoints': (string)[];
}
//# sourceMappingURL=DescribeClusterResponse.d.ts.map