import type { MessageTypeDefinition } from '@grpc/proto-loader';
import type { BrokerInfo as _sluice_v1_BrokerInfo, BrokerInfo__Output as _sluice_v1_BrokerInfo__Output } from './sluice/v1/BrokerInfo.js';
import type { PartitionState as _sluice_v1_PartitionState, PartitionState__Output as _sluice_v1_PartitionState__Output } from './sluice/v1/PartitionState.js';
import type { TopicConfigEntry as _sluice_v1_TopicConfigEntry, TopicConfigEntry__Output as _sluice_v1_TopicConfigEntry__Output } from './sluice/v1/TopicConfigEntry.js';
export interface ProtoGrpcType {
    sluice: {
        v1: {
            BrokerInfo: MessageTypeDefinition<_sluice_v1_BrokerInfo, _sluice_v1_BrokerInfo__Output>;
            PartitionState: MessageTypeDefinition<_sluice_v1_PartitionState, _sluice_v1_PartitionState__Output>;
            TopicConfigEntry: MessageTypeDefinition<_sluice_v1_TopicConfigEntry, _sluice_v1_TopicConfigEntry__Output>;
        };
    };
}
//# sourceMappingURL=common.d.ts.map