import type * as grpc from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { DeleteRecordsRequest as _sluice_v1_DeleteRecordsRequest, DeleteRecordsRequest__Output as _sluice_v1_DeleteRecordsRequest__Output } from '../../sluice/v1/DeleteRecordsRequest.js';
import type { DeleteRecordsResponse as _sluice_v1_DeleteRecordsResponse, DeleteRecordsResponse__Output as _sluice_v1_DeleteRecordsResponse__Output } from '../../sluice/v1/DeleteRecordsResponse.js';
import type { FetchRequest as _sluice_v1_FetchRequest, FetchRequest__Output as _sluice_v1_FetchRequest__Output } from '../../sluice/v1/FetchRequest.js';
import type { FetchResponse as _sluice_v1_FetchResponse, FetchResponse__Output as _sluice_v1_FetchResponse__Output } from '../../sluice/v1/FetchResponse.js';
import type { ListOffsetsRequest as _sluice_v1_ListOffsetsRequest, ListOffsetsRequest__Output as _sluice_v1_ListOffsetsRequest__Output } from '../../sluice/v1/ListOffsetsRequest.js';
import type { ListOffsetsResponse as _sluice_v1_ListOffsetsResponse, ListOffsetsResponse__Output as _sluice_v1_ListOffsetsResponse__Output } from '../../sluice/v1/ListOffsetsResponse.js';
import type { MetadataRequest as _sluice_v1_MetadataRequest, MetadataRequest__Output as _sluice_v1_MetadataRequest__Output } from '../../sluice/v1/MetadataRequest.js';
import type { MetadataResponse as _sluice_v1_MetadataResponse, MetadataResponse__Output as _sluice_v1_MetadataResponse__Output } from '../../sluice/v1/MetadataResponse.js';
import type { ProduceRequest as _sluice_v1_ProduceRequest, ProduceRequest__Output as _sluice_v1_ProduceRequest__Output } from '../../sluice/v1/ProduceRequest.js';
import type { ProduceResponse as _sluice_v1_ProduceResponse, ProduceResponse__Output as _sluice_v1_ProduceResponse__Output } from '../../sluice/v1/ProduceResponse.js';
export interface BrokerClient extends grpc.Client {
    DeleteRecords(argument: _sluice_v1_DeleteRecordsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DeleteRecordsResponse__Output>): grpc.ClientUnaryCall;
    DeleteRecords(argument: _sluice_v1_DeleteRecordsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_DeleteRecordsResponse__Output>): grpc.ClientUnaryCall;
    DeleteRecords(argument: _sluice_v1_DeleteRecordsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DeleteRecordsResponse__Output>): grpc.ClientUnaryCall;
    DeleteRecords(argument: _sluice_v1_DeleteRecordsRequest, callback: grpc.requestCallback<_sluice_v1_DeleteRecordsResponse__Output>): grpc.ClientUnaryCall;
    deleteRecords(argument: _sluice_v1_DeleteRecordsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DeleteRecordsResponse__Output>): grpc.ClientUnaryCall;
    deleteRecords(argument: _sluice_v1_DeleteRecordsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_DeleteRecordsResponse__Output>): grpc.ClientUnaryCall;
    deleteRecords(argument: _sluice_v1_DeleteRecordsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_DeleteRecordsResponse__Output>): grpc.ClientUnaryCall;
    deleteRecords(argument: _sluice_v1_DeleteRecordsRequest, callback: grpc.requestCallback<_sluice_v1_DeleteRecordsResponse__Output>): grpc.ClientUnaryCall;
    Fetch(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_FetchRequest, _sluice_v1_FetchResponse__Output>;
    Fetch(options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_FetchRequest, _sluice_v1_FetchResponse__Output>;
    fetch(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_FetchRequest, _sluice_v1_FetchResponse__Output>;
    fetch(options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_FetchRequest, _sluice_v1_FetchResponse__Output>;
    ListOffsets(argument: _sluice_v1_ListOffsetsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_ListOffsetsResponse__Output>): grpc.ClientUnaryCall;
    ListOffsets(argument: _sluice_v1_ListOffsetsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_ListOffsetsResponse__Output>): grpc.ClientUnaryCall;
    ListOffsets(argument: _sluice_v1_ListOffsetsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_ListOffsetsResponse__Output>): grpc.ClientUnaryCall;
    ListOffsets(argument: _sluice_v1_ListOffsetsRequest, callback: grpc.requestCallback<_sluice_v1_ListOffsetsResponse__Output>): grpc.ClientUnaryCall;
    listOffsets(argument: _sluice_v1_ListOffsetsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_ListOffsetsResponse__Output>): grpc.ClientUnaryCall;
    listOffsets(argument: _sluice_v1_ListOffsetsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_ListOffsetsResponse__Output>): grpc.ClientUnaryCall;
    listOffsets(argument: _sluice_v1_ListOffsetsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_ListOffsetsResponse__Output>): grpc.ClientUnaryCall;
    listOffsets(argument: _sluice_v1_ListOffsetsRequest, callback: grpc.requestCallback<_sluice_v1_ListOffsetsResponse__Output>): grpc.ClientUnaryCall;
    Metadata(argument: _sluice_v1_MetadataRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_MetadataResponse__Output>): grpc.ClientUnaryCall;
    Metadata(argument: _sluice_v1_MetadataRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_MetadataResponse__Output>): grpc.ClientUnaryCall;
    Metadata(argument: _sluice_v1_MetadataRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_MetadataResponse__Output>): grpc.ClientUnaryCall;
    Metadata(argument: _sluice_v1_MetadataRequest, callback: grpc.requestCallback<_sluice_v1_MetadataResponse__Output>): grpc.ClientUnaryCall;
    metadata(argument: _sluice_v1_MetadataRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_MetadataResponse__Output>): grpc.ClientUnaryCall;
    metadata(argument: _sluice_v1_MetadataRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_sluice_v1_MetadataResponse__Output>): grpc.ClientUnaryCall;
    metadata(argument: _sluice_v1_MetadataRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_sluice_v1_MetadataResponse__Output>): grpc.ClientUnaryCall;
    metadata(argument: _sluice_v1_MetadataRequest, callback: grpc.requestCallback<_sluice_v1_MetadataResponse__Output>): grpc.ClientUnaryCall;
    Produce(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_ProduceRequest, _sluice_v1_ProduceResponse__Output>;
    Produce(options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_ProduceRequest, _sluice_v1_ProduceResponse__Output>;
    produce(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_ProduceRequest, _sluice_v1_ProduceResponse__Output>;
    produce(options?: grpc.CallOptions): grpc.ClientDuplexStream<_sluice_v1_ProduceRequest, _sluice_v1_ProduceResponse__Output>;
}
export interface BrokerHandlers extends grpc.UntypedServiceImplementation {
    DeleteRecords: grpc.handleUnaryCall<_sluice_v1_DeleteRecordsRequest__Output, _sluice_v1_DeleteRecordsResponse>;
    Fetch: grpc.handleBidiStreamingCall<_sluice_v1_FetchRequest__Output, _sluice_v1_FetchResponse>;
    ListOffsets: grpc.handleUnaryCall<_sluice_v1_ListOffsetsRequest__Output, _sluice_v1_ListOffsetsResponse>;
    Metadata: grpc.handleUnaryCall<_sluice_v1_MetadataRequest__Output, _sluice_v1_MetadataResponse>;
    Produce: grpc.handleBidiStreamingCall<_sluice_v1_ProduceRequest__Output, _sluice_v1_ProduceResponse>;
}
export interface BrokerDefinition extends grpc.ServiceDefinition {
    DeleteRecords: MethodDefinition<_sluice_v1_DeleteRecordsRequest, _sluice_v1_DeleteRecordsResponse, _sluice_v1_DeleteRecordsRequest__Output, _sluice_v1_DeleteRecordsResponse__Output>;
    Fetch: MethodDefinition<_sluice_v1_FetchRequest, _sluice_v1_FetchResponse, _sluice_v1_FetchRequest__Output, _sluice_v1_FetchResponse__Output>;
    ListOffsets: MethodDefinition<_sluice_v1_ListOffsetsRequest, _sluice_v1_ListOffsetsResponse, _sluice_v1_ListOffsetsRequest__Output, _sluice_v1_ListOffsetsResponse__Output>;
    Metadata: MethodDefinition<_sluice_v1_MetadataRequest, _sluice_v1_MetadataResponse, _sluice_v1_MetadataRequest__Output, _sluice_v1_MetadataResponse__Output>;
    Produce: MethodDefinition<_sluice_v1_ProduceRequest, _sluice_v1_ProduceResponse, _sluice_v1_ProduceRequest__Output, _sluice_v1_ProduceResponse__Output>;
}
//# sourceMappingURL=Broker.d.ts.map