import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as BrokerProto } from './generated/broker.js';
import type { ProtoGrpcType as MetadataProto } from './generated/metadata.js';
import type { ProtoGrpcType as GroupProto } from './generated/group.js';
export type SluiceProto = BrokerProto & MetadataProto & GroupProto;
/** The loader options shared by every process; see the type generator's flags. */
export declare const PROTO_LOADER_OPTIONS: protoLoader.Options;
/** Where proto/ is: beside the repository root (src/ and dist/ are both one level down). */
export declare function protoRoot(): string;
export declare function loadSluiceProto(): SluiceProto;
/**
 * Channel and server options every Sluice process uses: messages up to 64 MiB (a fetch response
 * carries many partitions' batches), and keepalives so a dead peer is noticed.
 */
export declare const GRPC_MAX_MESSAGE_BYTES: number;
export declare const GRPC_CHANNEL_OPTIONS: grpc.ChannelOptions;
export declare const GRPC_SERVER_OPTIONS: grpc.ServerOptions;
//# sourceMappingURL=proto.d.ts.map