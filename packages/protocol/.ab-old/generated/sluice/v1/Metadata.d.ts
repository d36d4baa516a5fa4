import type * as grpc from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { AlterConfigsRequest as _sluice_v1_AlterConfigsRequest, AlterConfigsRequest__Output as _sluice_v1_AlterConfigsRequest__Output } from '../../sluice/v1/AlterConfigsRequest.js';
import type { AlterConfigsResponse as _sluice_v1_AlterConfigsResponse, AlterConfigsResponse__Output as _sluice_v1_AlterConfigsResponse__Output } from '../../sluice/v1/AlterConfigsResponse.js';
import type { AlterPartitionRequest as _sluice_v1_AlterPartitionRequest, AlterPartitionRequest__Output as _sluice_v1_AlterPartitionRequest__Output } from '../../sluice/v1/AlterPartitionRequest.js';
import type { AlterPartitionResponse as _sluice_v1_AlterPartitionResponse, AlterPartitionResponse__Output as _sluice_v1_AlterPartitionResponse__Output } from '../../sluice/v1/AlterPartitionResponse.js';
import type { BrokerSessionRequest as _sluice_v1_BrokerSessionRequest, BrokerSessionRequest__Output as _sluice_v1_BrokerSessionRequest__Output } from '../../sluice/v1/BrokerSessionRequest.js';
import type { BrokerSessionResponse as _sluice_v1_BrokerSessionResponse, BrokerSessionResponse__Output as _sluice_v1_BrokerSessionResponse__Output } from '../../sluice/v1/BrokerSessionResponse.js';
import type { CreatePartitionsRequest as _sluice_v1_CreatePartitionsRequest, CreatePartitionsRequest__Output as _sluice_v1_CreatePartitionsRequest__Output } from '../../sluice/v1/CreatePartitionsRequest.js';
import type { CreatePartitionsResponse as _sluice_v1_CreatePartitionsResponse, CreatePartitionsResponse__Output as _sluice_v1_CreatePartitionsResponse__Output } from '../../sluice/v1/CreatePartitionsResponse.js';
import type { CreateTopicsRequest as _sluice_v1_CreateTopicsRequest, CreateTopicsRequest__Output as _sluice_v1_CreateTopicsRequest__Output } from '../../sluice/v1/CreateTopicsRequest.js';
import type { CreateTopicsResponse as _sluice_v1_CreateTopicsResponse, CreateTopicsResponse__Output as _sluice_v1_CreateTopicsResponse__Output } from '../../sluice/v1/CreateTopicsResponse.js';
import type { DeleteTopicsRequest as _sluice_v1_DeleteTopicsRequest, DeleteTopicsRequest__Output as _sluice_v1_DeleteTopicsRequest__Output } from '../../sluice/v1/DeleteTopicsRequest.js';
import type { DeleteTopicsResponse as _sluice_v1_DeleteTopicsResponse, DeleteTopicsResponse__Output as _sluice_v1_DeleteTopicsResponse__Output } from '../../sluice/v1/DeleteTopicsResponse.js';
import type { DescribeClusterRequest as _sluice_v1_DescribeClusterRequest, DescribeClusterRequest__Output as _sluice_v1_DescribeClusterRequest__Output } from '../../sluice/v1/DescribeClusterRequest.js';
import type { DescribeClusterResponse as _sluice_v1_DescribeClusterResponse, DescribeClusterResponse__Output as _sluice_v1_DescribeClusterResponse__Output } from '../../sluice/v1/DescribeClusterResponse.js';
import type { DescribeTopicsRequest as _sluice_v1_DescribeTopicsRequest, DescribeTopicsRequest__Output as _sluice_v1_DescribeTopicsRequest__Output } from '../../sluice/v1/DescribeTopicsRequest.js';
import type { DescribeTopicsResponse as _sluice_v1_DescribeTopicsResponse, DescribeTopicsResponse__Output as _sluice_v1_DescribeTopicsResponse__Output } from '../../sluice/v1/DescribeTopicsResponse.js';
import type { ElectLeadersRequest as _sluice_v1_ElectLeadersRequest, ElectLeadersRequest__Output as _sluice_v1_ElectLeadersRequest__Output } from '../../sluice/v1/ElectLeadersRequest.js';
import type { ElectLeadersResponse as _sluice_v1_ElectLeadersResponse, ElectLeadersResponse__Output as _sluice_v1_ElectLeadersResponse__Output } from '../../sluice/v1/ElectLeadersResponse.js';
import type { InitProducerIdRequest as _sluice_v1_InitProducerIdRequest, InitProducerIdRequest__Output as _sluice_v1_InitProducerIdRequest__Output } from '../../sluice/v1/InitProducerIdRequest.js';
import type { InitProducerIdResponse as _sluice_v1_InitProducerIdResponse, InitProducerIdResponse__Output as _sluice_v1_InitProducerIdResponse__Output } from '../../sluice/v1/InitProducerIdResponse.js';
export interface MetadataClient extends grpc.Client {
    AlterConfigs(argument: _sluice_v1_AlterConfigsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_AlterConfigsResponse__Output>): grpc.ClientUnaryCall;
    AlterConfigs(argument: _sluice_v1_AlterConfigsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_AlterConfigsResponse__Output>): grpc.ClientUnaryCall;
    AlterConfigs(argument: _sluice_v1_AlterConfigsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_AlterConfigsResponse__Output>): grpc.ClientUnaryCall;
    AlterConfigs(argument: _sluice_v1_AlterConfigsRequest, callback: grpc.requestCallback<_sluice_v1_AlterConfigsResponse__Output>): grpc.ClientUnaryCall;
    alterConfigs(argument: _sluice_v1_AlterConfigsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_AlterConfigsResponse__Output>): grpc.ClientUnaryCall;
    alterConfigs(argument: _sluice_v1_AlterConfigsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_AlterConfigsResponse__Output>): grpc.ClientUnaryCall;
    alterConfigs(argument: _sluice_v1_AlterConfigsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_AlterConfigsResponse__Output>): grpc.ClientUnaryCall;
    alterConfigs(argument: _sluice_v1_AlterConfigsRequest, callback: grpc.requestCallback<_sluice_v1_AlterConfigsResponse__Output>): grpc.ClientUnaryCall;
    AlterPartition(argument: _sluice_v1_AlterPartitionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_AlterPartitionResponse__Output>): grpc.ClientUnaryCall;
    AlterPartition(argument: _sluice_v1_AlterPartitionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_AlterPartitionResponse__Output>): grpc.ClientUnaryCall;
    AlterPartition(argument: _sluice_v1_AlterPartitionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_AlterPartitionResponse__Output>): grpc.ClientUnaryCall;
    AlterPartition(argument: _sluice_v1_AlterPartitionRequest, callback: grpc.requestCallback<_sluice_v1_AlterPartitionResponse__Output>): grpc.ClientUnaryCall;
    alterPartition(argument: _sluice_v1_AlterPartitionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_AlterPartitionResponse__Output>): grpc.ClientUnaryCall;
    alterPartition(argument: _sluice_v1_AlterPartitionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_AlterPartitionResponse__Output>): grpc.ClientUnaryCall;
    alterPartition(argument: _sluice_v1_AlterPartitionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_AlterPartitionResponse__Output>): grpc.ClientUnaryCall;
    alterPartition(argument: _sluice_v1_AlterPartitionRequest, callback: grpc.requestCallback<_sluice_v1_AlterPartitionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * Register and heartbeat upstream; registration result and partition-state deltas downstream.
     * The session (and the ephemeral /brokers/ids/<id> node) ends when heartbeats stop for the
     * session timeout, or at once when the stream breaks.
     */
    BrokerSession(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_BrokerSessionRequest, _sluice_v1_BrokerSessionResponse__Output>;
    BrokerSession(options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_BrokerSessionRequest, _sluice_v1_BrokerSessionResponse__Output>;
    /**
     * Register and heartbeat upstream; registration result and partition-state deltas downstream.
     * The session (and the ephemeral /brokers/ids/<id> node) ends when heartbeats stop for the
     * session timeout, or at once when the stream breaks.
     */
    brokerSession(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_BrokerSessionRequest, _sluice_v1_BrokerSessionResponse__Output>;
    brokerSession(options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_BrokerSessionRequest, _sluice_v1_BrokerSessionResponse__Output>;
    CreatePartitions(argument: _sluice_v1_CreatePartitionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_CreatePartitionsResponse__Output>): grpc.ClientUnaryCall;
    CreatePartitions(argument: _sluice_v1_CreatePartitionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_CreatePartitionsResponse__Output>): grpc.ClientUnaryCall;
    CreatePartitions(argument: _sluice_v1_CreatePartitionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_CreatePartitionsResponse__Output>): grpc.ClientUnaryCall;
    CreatePartitions(argument: _sluice_v1_CreatePartitionsRequest, callback: grpc.requestCallback<_sluice_v1_CreatePartitionsResponse__Output>): grpc.ClientUnaryCall;
    createPartitions(argument: _sluice_v1_CreatePartitionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_CreatePartitionsResponse__Output>): grpc.ClientUnaryCall;
    createPartitions(argument: _sluice_v1_CreatePartitionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_CreatePartitionsResponse__Output>): grpc.ClientUnaryCall;
    createPartitions(argument: _sluice_v1_CreatePartitionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_CreatePartitionsResponse__Output>): grpc.ClientUnaryCall;
    createPartitions(argument: _sluice_v1_CreatePartitionsRequest, callback: grpc.requestCallback<_sluice_v1_CreatePartitionsResponse__Output>): grpc.ClientUnaryCall;
    CreateTopics(argument: _sluice_v1_CreateTopicsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_CreateTopicsResponse__Output>): grpc.ClientUnaryCall;
    CreateTopics(argument: _sluice_v1_CreateTopicsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_CreateTopicsResponse__Output>): grpc.ClientUnaryCall;
    CreateTopics(argument: _sluice_v1_CreateTopicsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_CreateTopicsResponse__Output>): grpc.ClientUnaryCall;
    CreateTopics(argument: _sluice_v1_CreateTopicsRequest, callback: grpc.requestCallback<_sluice_v1_CreateTopicsResponse__Output>): grpc.ClientUnaryCall;
    createTopics(argument: _sluice_v1_CreateTopicsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_CreateTopicsResponse__Output>): grpc.ClientUnaryCall;
    createTopics(argument: _sluice_v1_CreateTopicsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_CreateTopicsResponse__Output>): grpc.ClientUnaryCall;
    createTopics(argument: _sluice_v1_CreateTopicsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_CreateTopicsResponse__Output>): grpc.ClientUnaryCall;
    createTopics(argument: _sluice_v1_CreateTopicsRequest, callback: grpc.requestCallback<_sluice_v1_CreateTopicsResponse__Output>): grpc.ClientUnaryCall;
    DeleteTopics(argument: _sluice_v1_DeleteTopicsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DeleteTopicsResponse__Output>): grpc.ClientUnaryCall;
    DeleteTopics(argument: _sluice_v1_DeleteTopicsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_DeleteTopicsResponse__Output>): grpc.ClientUnaryCall;
    DeleteTopics(argument: _sluice_v1_DeleteTopicsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DeleteTopicsResponse__Output>): grpc.ClientUnaryCall;
    DeleteTopics(argument: _sluice_v1_DeleteTopicsRequest, callback: grpc.requestCallback<_sluice_v1_DeleteTopicsResponse__Output>): grpc.ClientUnaryCall;
    deleteTopics(argument: _sluice_v1_DeleteTopicsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DeleteTopicsResponse__Output>): grpc.ClientUnaryCall;
    deleteTopics(argument: _sluice_v1_DeleteTopicsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_DeleteTopicsResponse__Output>): grpc.ClientUnaryCall;
    deleteTopics(argument: _sluice_v1_DeleteTopicsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DeleteTopicsResponse__Output>): grpc.ClientUnaryCall;
    deleteTopics(argument: _sluice_v1_DeleteTopicsRequest, callback: grpc.requestCallback<_sluice_v1_DeleteTopicsResponse__Output>): grpc.ClientUnaryCall;
    DescribeCluster(argument: _sluice_v1_DescribeClusterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DescribeClusterResponse__Output>): grpc.ClientUnaryCall;
    DescribeCluster(argument: _sluice_v1_DescribeClusterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_DescribeClusterResponse__Output>): grpc.ClientUnaryCall;
    DescribeCluster(argument: _sluice_v1_DescribeClusterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DescribeClusterResponse__Output>): grpc.ClientUnaryCall;
    DescribeCluster(argument: _sluice_v1_DescribeClusterRequest, callback: grpc.requestCallback<_sluice_v1_DescribeClusterResponse__Output>): grpc.ClientUnaryCall;
    describeCluster(argument: _sluice_v1_DescribeClusterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DescribeClusterResponse__Output>): grpc.ClientUnaryCall;
    describeCluster(argument: _sluice_v1_DescribeClusterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_DescribeClusterResponse__Output>): grpc.ClientUnaryCall;
    describeCluster(argument: _sluice_v1_DescribeClusterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DescribeClusterResponse__Output>): grpc.ClientUnaryCall;
    describeCluster(argument: _sluice_v1_DescribeClusterRequest, callback: grpc.requestCallback<_sluice_v1_DescribeClusterResponse__Output>): grpc.ClientUnaryCall;
    DescribeTopics(argument: _sluice_v1_DescribeTopicsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DescribeTopicsResponse__Output>): grpc.ClientUnaryCall;
    DescribeTopics(argument: _sluice_v1_DescribeTopicsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_DescribeTopicsResponse__Output>): grpc.ClientUnaryCall;
    DescribeTopics(argument: _sluice_v1_DescribeTopicsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DescribeTopicsResponse__Output>): grpc.ClientUnaryCall;
    DescribeTopics(argument: _sluice_v1_DescribeTopicsRequest, callback: grpc.requestCallback<_sluice_v1_DescribeTopicsResponse__Output>): grpc.ClientUnaryCall;
    describeTopics(argument: _sluice_v1_DescribeTopicsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DescribeTopicsResponse__Output>): grpc.ClientUnaryCall;
    describeTopics(argument: _sluice_v1_DescribeTopicsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_DescribeTopicsResponse__Output>): grpc.ClientUnaryCall;
    describeTopics(argument: _sluice_v1_DescribeTopicsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DescribeTopicsResponse__Output>): grpc.ClientUnaryCall;
    describeTopics(argument: _sluice_v1_DescribeTopicsRequest, callback: grpc.requestCallback<_sluice_v1_DescribeTopicsResponse__Output>): grpc.ClientUnaryCall;
    ElectLeaders(argument: _sluice_v1_ElectLeadersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_ElectLeadersResponse__Output>): grpc.ClientUnaryCall;
    ElectLeaders(argument: _sluice_v1_ElectLeadersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_ElectLeadersResponse__Output>): grpc.ClientUnaryCall;
    ElectLeaders(argument: _sluice_v1_ElectLeadersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_ElectLeadersResponse__Output>): grpc.ClientUnaryCall;
    ElectLeaders(argument: _sluice_v1_ElectLeadersRequest, callback: grpc.requestCallback<_sluice_v1_ElectLeadersResponse__Output>): grpc.ClientUnaryCall;
    electLeaders(argument: _sluice_v1_ElectLeadersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_ElectLeadersResponse__Output>): grpc.ClientUnaryCall;
    electLeaders(argument: _sluice_v1_ElectLeadersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_ElectLeadersResponse__Output>): grpc.ClientUnaryCall;
    electLeaders(argument: _sluice_v1_ElectLeadersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_ElectLeadersResponse__Output>): grpc.ClientUnaryCall;
    electLeaders(argument: _sluice_v1_ElectLeadersRequest, callback: grpc.requestCallback<_sluice_v1_ElectLeadersResponse__Output>): grpc.ClientUnaryCall;
    InitProducerId(argument: _sluice_v1_InitProducerIdRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_InitProducerIdResponse__Output>): grpc.ClientUnaryCall;
    InitProducerId(argument: _sluice_v1_InitProducerIdRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_InitProducerIdResponse__Output>): grpc.ClientUnaryCall;
    InitProducerId(argument: _sluice_v1_InitProducerIdRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_InitProducerIdResponse__Output>): grpc.ClientUnaryCall;
    InitProducerId(argument: _sluice_v1_InitProducerIdRequest, callback: grpc.requestCallback<_sluice_v1_InitProducerIdResponse__Output>): grpc.ClientUnaryCall;
    initProducerId(argument: _sluice_v1_InitProducerIdRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_InitProducerIdResponse__Output>): grpc.ClientUnaryCall;
    initProducerId(argument: _sluice_v1_InitProducerIdRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_InitProducerIdResponse__Output>): grpc.ClientUnaryCall;
    initProducerId(argument: _sluice_v1_InitProducerIdRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_InitProducerIdResponse__Output>): grpc.ClientUnaryCall;
    initProducerId(argument: _sluice_v1_InitProducerIdRequest, callback: grpc.requestCallback<_sluice_v1_InitProducerIdResponse__Output>): grpc.ClientUnaryCall;
}
export interface MetadataHandlers extends grpc.UntypedServiceImplementation {
    AlterConfigs: grpc.handleUnaryCall<_sluice_v1_AlterConfigsRequest__Output, _sluice_v1_AlterConfigsResponse>;
    AlterPartition: grpc.handleUnaryCall<_sluice_v1_AlterPartitionRequest__Output, _sluice_v1_AlterPartitionResponse>;
    /**
     * Register and heartbeat upstream; registration result and partition-state deltas downstream.
     * The session (and the ephemeral /brokers/ids/<id> node) ends when heartbeats stop for the
     * session timeout, or at once when the stream breaks.
     */
    BrokerSession: grpc.handleBidiStreamingCall<_sluice_v1_BrokerSessionRequest__Output, _sluice_v1_BrokerSessionResponse>;
    CreatePartitions: grpc.handleUnaryCall<_sluice_v1_CreatePartitionsRequest__Output, _sluice_v1_CreatePartitionsResponse>;
    CreateTopics: grpc.handleUnaryCall<_sluice_v1_CreateTopicsRequest__Output, _sluice_v1_CreateTopicsResponse>;
    DeleteTopics: grpc.handleUnaryCall<_sluice_v1_DeleteTopicsRequest__Output, _sluice_v1_DeleteTopicsResponse>;
    DescribeCluster: grpc.handleUnaryCall<_sluice_v1_DescribeClusterRequest__Output, _sluice_v1_DescribeClusterResponse>;
    DescribeTopics: grpc.handleUnaryCall<_sluice_v1_DescribeTopicsRequest__Output, _sluice_v1_DescribeTopicsResponse>;
    ElectLeaders: grpc.handleUnaryCall<_sluice_v1_ElectLeadersRequest__Output, _sluice_v1_ElectLeadersResponse>;
    InitProducerId: grpc.handleUnaryCall<_sluice_v1_InitProducerIdRequest__Output, _sluice_v1_InitProducerIdResponse>;
}
export interface MetadataDefinition extends grpc.ServiceDefinition {
    AlterConfigs: MethodDefinition<_sluice_v1_AlterConfigsRequest, _sluice_v1_AlterConfigsResponse, _sluice_v1_AlterConfigsRequest__Output, _sluice_v1_AlterConfigsResponse__Output>;
    AlterPartition: MethodDefinition<_sluice_v1_AlterPartitionRequest, _sluice_v1_AlterPartitionResponse, _sluice_v1_AlterPartitionRequest__Output, _sluice_v1_AlterPartitionResponse__Output>;
    BrokerSession: MethodDefinition<_sluice_v1_BrokerSessionRequest, _sluice_v1_BrokerSessionResponse, _sluice_v1_BrokerSessionRequest__Output, _sluice_v1_BrokerSessionResponse__Output>;
    CreatePartitions: MethodDefinition<_sluice_v1_CreatePartitionsRequest, _sluice_v1_CreatePartitionsResponse, _sluice_v1_CreatePartitionsRequest__Output, _sluice_v1_CreatePartitionsResponse__Output>;
    CreateTopics: MethodDefinition<_sluice_v1_CreateTopicsRequest, _sluice_v1_CreateTopicsResponse, _sluice_v1_CreateTopicsRequest__Output, _sluice_v1_CreateTopicsResponse__Output>;
    DeleteTopics: MethodDefinition<_sluice_v1_DeleteTopicsRequest, _sluice_v1_DeleteTopicsResponse, _sluice_v1_DeleteTopicsRequest__Output, _sluice_v1_DeleteTopicsResponse__Output>;
    DescribeCluster: MethodDefinition<_sluice_v1_DescribeClusterRequest, _sluice_v1_DescribeClusterResponse, _sluice_v1_DescribeClusterRequest__Output, _sluice_v1_DescribeClusterResponse__Output>;
    DescribeTopics: MethodDefinition<_sluice_v1_DescribeTopicsRequest, _sluice_v1_DescribeTopicsResponse, _sluice_v1_DescribeTopicsRequest__Output, _sluice_v1_DescribeTopicsResponse__Output>;
    ElectLeaders: MethodDefinition<_sluice_v1_ElectLeadersRequest, _sluice_v1_ElectLeadersResponse, _sluice_v1_ElectLeadersRequest__Output, _sluice_v1_ElectLeadersResponse__Output>;
    InitProducerId: MethodDefinition<_sluice_v1_InitProducerIdRequest, _sluice_v1_InitProducerIdResponse, _sluice_v1_InitProducerIdRequest__Output, _sluice_v1_InitProducerIdResponse__Output>;
}
//# sourceMappingURL=Metadata.d.ts.map