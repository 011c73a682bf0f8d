/**
 * A Kubernetes protobuf body that cannot be decoded: malformed bytes, a wire type that contradicts the field's
 * declared type, or a type the table does not know. The apiserver answers it with 400 BadRequest.
 */
export class ProtobufError extends Error {
  override readonly name = 'ProtobufError';
}
