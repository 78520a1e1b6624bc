package io.fanout.shard;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.RowDecoder;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.store.Half;
import io.fanout.store.InvalidInputException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The inline feature rows of a typed shard row ({@code sample --features} on a typed store, {@code
 * docs/formats.md}, "Typed mini-batch shards"): for every type {@code t} in type order whose width
 * {@code dims[t]} is not 0, the rows of {@code nodes(t)} (all hops, in node order), concatenated.
 * With {@link FeatureEncoding#F32} or {@link FeatureEncoding#F16} a row is {@code dims[t]} values;
 * with a stored encoding ({@code int8}, {@code int4}, {@code pq}) it is the type's row as the store
 * holds it ({@code decoder().rowBytes()} bytes, undecoded), which the reader decodes with that
 * type's {@link RowDecoder}. Featureless types (learned embeddings) carry none.
 */
public final class TypedFeatureRows {
  private TypedFeatureRows() {}

  /** Rows gathered per chunk, so no float copy of a whole type's rows is held. */
  private static final int CHUNK_VALUES = 1 << 16;

  /**
   * The widths of the inline rows by type: {@code tables[t].dim()}, 0 where {@code tables[t]} is
   * null.
   */
  public static int[] dims(FeatureTable[] tables) {
    int[] dims = new int[tables.length];
    for (int t = 0; t < tables.length; t++) {
      dims[t] = tables[t] == null ? 0 : tables[t].dim();
    }
    return dims;
  }

  /**
   * Gathers and encodes the inline rows of {@code b}.
   *
   * @param tables per type the table to gather from, null for a type that carries none
   */
  public static byte[] encode(TypedMiniBatch b, FeatureTable[] tables, FeatureEncoding enc) {
    if (enc == FeatureEncoding.NONE) {
      throw new IllegalArgumentException("no inline rows to encode with features none");
    }
    int[] dims = dims(tables);
    int[] rowBytes = new int[tables.length];
    long bytes = 0;
    for (int t = 0; t < tables.length; t++) {
      if (dims[t] > 0) {
        rowBytes[t] = enc.stored() ? storedRowBytes(tables[t], t) : dims[t] * enc.bytesPerValue();
      }
      bytes += (long) b.nodes(t).length * rowBytes[t];
    }
    byte[] out = new byte[InlineFeatureBytes.checked(bytes, b.epoch(), b.batch(), enc)];
    int at = 0;
    float[] chunk = new float[0];
    for (int t = 0; t < tables.length; t++) {
      int dim = dims[t];
      if (dim == 0) {
        continue;
      }
      int[] ids = b.nodes(t);
      if (enc.stored()) {
        tables[t].gatherEncoded(ids, 0, ids.length, out, at);
        at += ids.length * rowBytes[t];
        continue;
      }
      int rowsPerChunk = Math.max(1, CHUNK_VALUES / dim);
      if (chunk.length < rowsPerChunk * dim) {
        chunk = new float[rowsPerChunk * dim];
      }
      for (int i = 0; i < ids.length; i += rowsPerChunk) {
        int c = Math.min(rowsPerChunk, ids.length - i);
        tables[t].gather(ids, i, c, chunk, 0);
        BatchCodec.encodeFeaturesInto(chunk, c * dim, enc, out, at);
        at += c * dim * enc.bytesPerValue();
      }
    }
    return out;
  }

  /** The bytes of one stored row of {@code table}, which must keep its encoded rows. */
  private static int storedRowBytes(FeatureTable table, int type) {
    RowDecoder d = table.decoder();
    if (d == null) {
      throw new IllegalArgumentException(
          "type " + type + "'s feature table keeps no encoded rows to inline");
    }
    return d.rowBytes();
  }

  /**
   * The inline rows of row {@code e} as float32 per type ({@code f16} widens exactly), null for a
   * type of width 0. Float encodings only; stored encodings need the store's decoders ({@link
   * #decode(EncodedTypedBatch, TypedMiniBatch, FeatureEncoding, int[], RowDecoder[])}).
   *
   * @param b the row decoded ({@link TypedBatchCodec#decode}): its node lists size the rows
   * @throws InvalidInputException when the row's feature bytes are not those rows, naming the batch
   */
  public static float[][] decode(
      EncodedTypedBatch e, TypedMiniBatch b, FeatureEncoding enc, int[] dims) {
    return decode(e, b, enc, dims, null);
  }

  /**
   * The inline rows of row {@code e} as float32 per type, null for a type of width 0: float rows
   * widened exactly, stored rows decoded with {@code decoders[t]} into the floats the store's own
   * reader gives.
   *
   * @param b the row decoded ({@link TypedBatchCodec#decode}): its node lists size the rows
   * @param decoders per type the store's decoder of its rows (null entries for types of width 0);
   *     only read with a stored {@code enc}
   * @throws InvalidInputException when the row's feature bytes are not those rows, naming the batch
   */
  public static float[][] decode(
      EncodedTypedBatch e,
      TypedMiniBatch b,
      FeatureEncoding enc,
      int[] dims,
      RowDecoder[] decoders) {
    byte[] src = e.features();
    int[] rowBytes = new int[dims.length];
    long want = 0;
    for (int t = 0; t < dims.length; t++) {
      if (dims[t] > 0) {
        rowBytes[t] = enc.stored() ? decoders[t].rowBytes() : dims[t] * enc.bytesPerValue();
      }
      want += (long) b.nodes(t).length * rowBytes[t];
    }
    if (src == null || src.length != want) {
      throw new RowInts.Row("typed shard row", e.epoch(), e.batch())
          .bad(
              ShardSchema.FEATURES,
              "has " + (src == null ? "no" : Integer.toString(src.length)) + " bytes",
              want + " (" + enc.id() + " rows of every featured type's nodes)");
    }
    ByteBuffer buf = ByteBuffer.wrap(src).order(ByteOrder.LITTLE_ENDIAN);
    float[][] out = new float[dims.length][];
    int at = 0;
    for (int t = 0; t < dims.length; t++) {
      if (dims[t] == 0) {
        continue;
      }
      int rows = b.nodes(t).length;
      int n = rows * dims[t];
      float[] x = new float[n];
      if (enc.stored()) {
        for (int i = 0; i < rows; i++) {
          decoders[t].decode(buf, at, x, i * dims[t]);
          at += rowBytes[t];
        }
      } else if (enc == FeatureEncoding.F32) {
        buf.position(at);
        buf.asFloatBuffer().get(x, 0, n);
        at += 4 * n;
      } else {
        for (int i = 0; i < n; i++) {
          x[i] = Half.toFloat(buf.getShort(at));
          at += 2;
        }
      }
      out[t] = x;
    }
    return out;
  }
}
