package io.fanout.dist;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The wire format of {@link MeshAllReduce}: little-endian 24-byte headers (magic, kind, two ints,
 * an 8-byte value) that start the handshake and every step, and the socket buffer size.
 */
final class MeshWire {
  static final int MAGIC = 0x46414152; // "FAAR"
  static final int KIND_HELLO = 1;
  static final int KIND_ACK = 2;
  static final int KIND_REDUCE = 3;
  static final int KIND_GATHER = 4;
  static final int HEADER_BYTES = 24;
  static final int SOCKET_BUFFER = 4 << 20;

  private MeshWire() {}

  /** A handshake header: {@code kind}, the sender's rank, the world size and the session. */
  static ByteBuffer header(int kind, int rank, int world, long session) {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(MAGIC).putInt(kind).putInt(rank).putInt(world).putLong(session).flip();
    return b;
  }

  /** The name of a message kind, as error messages say it. */
  static String kindName(int kind) {
    switch (kind) {
      case KIND_REDUCE:
        return "all-reduce";
      case KIND_GATHER:
        return "all-gather";
      case KIND_HELLO:
        return "handshake";
      case KIND_ACK:
        return "handshake reply";
      default:
        return "message kind " + kind;
    }
  }
}
