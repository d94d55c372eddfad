/**
 * Test support: the clients a prober uses against the gRPC server, built
 * from the standard protos grpc-node ships (health.proto, reflection.proto),
 * not from anything of this project, as grpc_health_probe and grpcurl would.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import {
  credentials,
  loadPackageDefinition,
  type Client,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';

const require = createRequire(import.meta.url);
const reflectionProtoPath = path.join(
  path.dirname(require.resolve('@grpc/reflection')),
  '../proto/grpc/reflection/v1/reflection.proto',
);

type Constructor = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
) => Client & Record<string, any>;
const loaded = loadPackageDefinition({
  ...loadSync(healthProtoPath, { enums: String }),
  ...loadSync(reflectionProtoPath, { enums: String }),
}) as any;
const HealthClient = loaded.grpc.health.v1.Health as Constructor;
const ReflectionClient = loaded.grpc.reflection.v1.ServerReflection as Constructor;

export interface HealthProbe {
  check(service?: string): Promise<string>;
  /** Opens a Watch; `statuses` fills as the server writes; `ended` resolves with the call's final status code. */
  watch(service?: string): { statuses: string[]; ended: Promise<number>; cancel(): void };
  close(): void;
}

export function healthProbe(port: number): HealthProbe {
  const client = new HealthClient(`127.0.0.1:${port}`, credentials.createInsecure());
  return {
    check: (service = '') =>
      new Promise((resolve, reject) => {
        client.Check({ service }, (err: ServiceError | null, reply: { status: string }) =>
          err ? reject(err) : resolve(reply.status),
        );
      }),
    watch: (service = '') => {
      const call = client.Watch({ service }) as ClientReadableStream<{ status: string }>;
      const statuses: string[] = [];
      call.on('data', (reply) => statuses.push(reply.status));
      const ended = new Promise<number>((resolve) => {
        call.on('status', (s) => resolve(s.code));
        call.on('error', () => undefined);
      });
      return { statuses, ended, cancel: () => call.cancel() };
    },
    close: () => client.close(),
  };
}

export interface ReflectionProbe {
  /** Full names of the services the server lists. */
  listServices(): Promise<string[]>;
  /** The files that declare `symbol` (a service, message or method), decoded. */
  fileContainingSymbol(symbol: string): Promise<FileDescriptorProto[]>;
  close(): void;
}

export function reflectionProbe(port: number): ReflectionProbe {
  const client = new ReflectionClient(`127.0.0.1:${port}`, credentials.createInsecure());
  const ask = (request: object): Promise<any> =>
    new Promise((resolve, reject) => {
      const call = client.ServerReflectionInfo();
      call.on('data', (reply: unknown) => {
        resolve(reply);
        call.end();
      });
      call.on('error', reject);
      call.write(request);
    });
  return {
    listServices: async () => {
      const reply = await ask({ listServices: '' });
      return (reply.listServicesResponse.service as { name: string }[]).map((s) => s.name);
    },
    fileContainingSymbol: async (symbol) => {
      const reply = await ask({ fileContainingSymbol: symbol });
      if (reply.errorResponse)
        throw new Error(`reflection error ${reply.errorResponse.errorCode}: ${reply.errorResponse.errorMessage}`);
      return (reply.fileDescriptorResponse.fileDescriptorProto as Buffer[]).map((bytes) =>
        fromBinary(FileDescriptorProtoSchema, bytes),
      );
    },
    close: () => client.close(),
  };
}
