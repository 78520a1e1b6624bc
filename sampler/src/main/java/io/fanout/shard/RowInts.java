package io.fanout.shard;

import io.fanout.sample.LinkPairs;
import io.fanout.store.InvalidInputException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The little-endian int32 array columns that one-type ({@link BatchCodec}) and typed ({@link
 * TypedBatchCodec}) shard rows share, and the error that names a bad column of a row.
 */
final class RowInts {
  private RowInts() {}

  /**
   * The row a column belongs to, for errors: {@code kind} ({@code shard row}, {@code typed shard
   * row}), its epoch and batch.
   */
  record Row(String kind, int epoch, int batch) {
    /** The error: column {@code column} of this row {@code what}, {@code expected} expected. */
    InvalidInputException bad(String column, String what, String expected) {
      return new InvalidInputException(
          kind
              + " (epoch "
              + epoch
              + ", batch "
              + batch
              + "): column '"
              + column
              + "' "
              + what
              + "; expected "
              + expected);
    }
  }

  /** {@code values} as the bytes of an int32 column. */
  static byte[] encode(int[] values) {
    byte[] out = new byte[4 * values.length];
    new Writer(out).put(values);
    return out;
  }

  /**
   * The values of int32 column {@code column} of {@code row}: {@code expected} of them, or any
   * whole number of them when {@code expected < 0}.
   */
  static int[] decode(Row row, String column, byte[] bytes, long expected) {
    if (bytes == null
        || bytes.length % 4 != 0
        || (expected >= 0 && bytes.length != 4L * expected)) {
      throw row.bad(
          column,
          "has " + (bytes == null ? "no" : bytes.length) + " bytes",
          expected >= 0 ? 4L * expected + " (" + expected + " int32)" : "a multiple of 4");
    }
    int[] out = new int[bytes.length / 4];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(out);
    return out;
  }

  /** A link batch's pairs as the {@code pairs} column: src, dst, label, each int32 per pair. */
  static byte[] encodePairs(LinkPairs p) {
    byte[] out = new byte[12 * p.size()];
    Writer v = new Writer(out);
    v.put(p.src());
    v.put(p.dst());
    v.put(p.label());
    return out;
  }

  /**
   * The {@code pairs} column of {@code row} as its three int32 arrays (sources, destinations,
   * labels), unchecked beyond their count: each codec checks the ids against its seeds.
   */
  static int[][] decodePairs(Row row, byte[] bytes) {
    int[] all = decode(row, ShardSchema.PAIRS, bytes, -1);
    if (all.length % 3 != 0) {
      throw row.bad(ShardSchema.PAIRS, "has " + all.length + " int32", "src, dst, label per pair");
    }
    int n = all.length / 3;
    return new int[][] {
      Arrays.copyOfRange(all, 0, n),
      Arrays.copyOfRange(all, n, 2 * n),
      Arrays.copyOfRange(all, 2 * n, 3 * n)
    };
  }

  /** Sequential little-endian int32 writer over a byte array. */
  static final class Writer {
    private final ByteBuffer buf;

    Writer(byte[] target) {
      buf = ByteBuffer.wrap(target).order(ByteOrder.LITTLE_ENDIAN);
    }

    void put(int[] values) {
      buf.asIntBuffer().put(values);
      buf.position(buf.position() + 4 * values.length);
    }
  }
}
