/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha), so that grpcurl
 * and similar tools list and call the services without a copy of the .proto
 * files. It describes the events contract from the descriptor that buf
 * compiled from proto/ and protobuf-es embedded in the generated code (the
 * one the server itself runs on), and the health service from grpc-node's
 * own health.proto.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { loadFileDescriptorSetFromBuffer, loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { file_clearml_events_v1_events_ingest } from './gen/clearml/events/v1/events_ingest_pb.js';

export function reflectionService(): ReflectionService {
  const eventsFiles = create(FileDescriptorSetSchema, { file: [file_clearml_events_v1_events_ingest.proto] });
  return new ReflectionService({
    ...loadFileDescriptorSetFromBuffer(Buffer.from(toBinary(FileDescriptorSetSchema, eventsFiles))),
    ...loadSync(healthProtoPath),
  });
}
