package io.fanout.train;

import io.fanout.store.InvalidInputException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Objects;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Candidate pairs for {@code infer --task link --pairs}: their dense ids in a store and the
 * original ids they were given by, with the id map's type ({@code long}, {@code int} or {@code
 * string}), in the input's row order.
 */
public final class CandidatePairs {
  private final int[] src;
  private final int[] dst;
  private final String idType;
  private final long[] srcLong;
  private final long[] dstLong;
  private final String[] srcText;
  private final String[] dstText;

  private CandidatePairs(
      int[] src,
      int[] dst,
      String idType,
      long[] srcLong,
      long[] dstLong,
      String[] srcText,
      String[] dstText) {
    this.src = Objects.requireNonNull(src, "src");
    this.dst = Objects.requireNonNull(dst, "dst");
    if (src.length != dst.length) {
      throw new IllegalArgumentException(
          src.length + " sources but " + dst.length + " destinations");
    }
    this.idType = idType;
    this.srcLong = srcLong;
    this.dstLong = dstLong;
    this.srcText = srcText;
    this.dstText = dstText;
  }

  /** Pairs whose original ids are numbers; {@code idType} is {@code long} or {@code int}. */
  public static CandidatePairs ofNumbers(
      int[] src, int[] dst, String idType, long[] srcIds, long[] dstIds) {
    if (!idType.equals("long") && !idType.equals("int")) {
      throw new IllegalArgumentException("numeric id type must be long or int, got " + idType);
    }
    checkLength(src, srcIds.length, dstIds.length);
    return new CandidatePairs(src, dst, idType, srcIds, dstIds, null, null);
  }

  /** Pairs whose original ids are strings. */
  public static CandidatePairs ofStrings(int[] src, int[] dst, String[] srcIds, String[] dstIds) {
    checkLength(src, srcIds.length, dstIds.length);
    return new CandidatePairs(src, dst, "string", null, null, srcIds, dstIds);
  }

  private static void checkLength(int[] src, int a, int b) {
    if (a != src.length || b != src.length) {
      throw new IllegalArgumentException(
          src.length + " pairs but " + a + " source and " + b + " destination ids");
    }
  }

  public int size() {
    return src.length;
  }

  public int[] src() {
    return src;
  }

  public int[] dst() {
    return dst;
  }

  /**
   * The first pair whose source is outside {@code 0 .. sources - 1} or whose destination is outside
   * {@code 0 .. destinations - 1}; -1 when every pair is inside.
   */
  public int firstOutside(long sources, long destinations) {
    for (int i = 0; i < src.length; i++) {
      if (src[i] < 0 || src[i] >= sources || dst[i] < 0 || dst[i] >= destinations) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Fails on the {@link #firstOutside} pair: "candidate pair {@code i} has {@code ids} (src, dst)
   * {@code range}", {@code ids} naming the ids ({@code dense ids}), {@code range} the ranges.
   */
  public void requireInside(long sources, long destinations, String ids, String range) {
    requireInside(sources, destinations, ids, range, 0);
  }

  /** {@link #requireInside(long, long, String, String)} of pairs from pair {@code first} on. */
  public void requireInside(long sources, long destinations, String ids, String range, long first) {
    int i = firstOutside(sources, destinations);
    if (i >= 0) {
      throw new InvalidInputException(
          "candidate pair "
              + (first + i)
              + " has "
              + ids
              + " ("
              + src[i]
              + ", "
              + dst[i]
              + ") "
              + range);
    }
  }

  /**
   * Adds the dense pairs, in order, to {@code sha256}: over all chunks, with the store's
   * fingerprint, what was asked.
   */
  void digest(MessageDigest sha256) {
    ByteBuffer b = ByteBuffer.allocate(8 * src.length);
    for (int i = 0; i < src.length; i++) {
      b.putInt(src[i]).putInt(dst[i]);
    }
    sha256.update(b.array());
  }

  /** Adds columns {@code src} and {@code dst} of the original id type. */
  Types.GroupBuilder<MessageType> declare(Types.GroupBuilder<MessageType> schema) {
    switch (idType) {
      case "long":
        return schema
            .required(PrimitiveTypeName.INT64)
            .named("src")
            .required(PrimitiveTypeName.INT64)
            .named("dst");
      case "int":
        return schema
            .required(PrimitiveTypeName.INT32)
            .named("src")
            .required(PrimitiveTypeName.INT32)
            .named("dst");
      default:
        return schema
            .required(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType())
            .named("src")
            .required(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType())
            .named("dst");
    }
  }

  /** Fills the {@code src} and {@code dst} columns of pair {@code i}. */
  void fill(Group row, int i) {
    switch (idType) {
      case "long":
        row.add("src", srcLong[i]);
        row.add("dst", dstLong[i]);
        break;
      case "int":
        row.add("src", (int) srcLong[i]);
        row.add("dst", (int) dstLong[i]);
        break;
      default:
        row.add("src", srcText[i]);
        row.add("dst", dstText[i]);
    }
  }
}
