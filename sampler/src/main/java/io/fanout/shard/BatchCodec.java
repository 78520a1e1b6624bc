package io.fanout.shard;

import io.fanout.graph.RowDecoder;
import io.fanout.sample.LinkPairs;
import io.fanout.sample.MiniBatch;
import io.fanout.store.Half;
import io.fanout.store.InvalidInputException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Converts a {@link MiniBatch} to and from a shard row ({@link EncodedBatch}), as specified in
 * {@code docs/formats.md} ("Mini-batch shards"): every array column is raw little-endian values,
 * copied in bulk.
 *
 * <p>{@link #decode} checks the row's structure (array lengths against {@code layer_sizes}, row
 * pointers) and fails with {@link InvalidInputException} naming the batch and the column, so a
 * truncated or foreign row never reaches a trainer as out-of-bounds indices.
 */
public final class BatchCodec {
  private BatchCodec() {}

  private static final VarHandle SHORT_LE =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * Encodes {@code b}.
   *
   * @param features rows of all {@code b.nodes()} in node order, row-major ({@code nodes * dim}
   *     values); ignored (may be null) when {@code enc} is {@link FeatureEncoding#NONE}
   * @param enc how to inline the features
   */
  public static EncodedBatch encode(MiniBatch b, float[] features, FeatureEncoding enc) {
    int layers = b.layers();
    int indptrLen = 0;
    long indicesLen = 0;
    for (int h = 1; h <= layers; h++) {
      indptrLen += b.indptr(h).length;
      indicesLen += b.indices(h).length;
    }
    if (indicesLen > Integer.MAX_VALUE / 4) {
      throw new IllegalArgumentException("batch " + b.batch() + " has too many edges for a row");
    }
    byte[] indptr = new byte[4 * indptrLen];
    byte[] indices = new byte[(int) (4 * indicesLen)];
    RowInts.Writer ptr = new RowInts.Writer(indptr);
    RowInts.Writer idx = new RowInts.Writer(indices);
    for (int h = 1; h <= layers; h++) {
      ptr.put(b.indptr(h));
      idx.put(b.indices(h));
    }
    return new EncodedBatch(
        b.epoch(),
        b.batch(),
        b.numSeeds(),
        RowInts.encode(b.layerSizes()),
        RowInts.encode(b.nodes()),
        indptr,
        indices,
        RowInts.encode(b.labels()),
        encodeFeatures(b.nodes().length, features, enc),
        b.pairs() == null ? null : RowInts.encodePairs(b.pairs()));
  }

  /** Encodes {@code count} feature rows ({@code values.length / count} per row). */
  public static byte[] encodeFeatures(int count, float[] values, FeatureEncoding enc) {
    if (enc == FeatureEncoding.NONE) {
      return null;
    }
    if (values == null) {
      throw new IllegalArgumentException("feature encoding " + enc.id() + " needs feature rows");
    }
    if (count == 0 ? values.length != 0 : values.length % count != 0) {
      throw new IllegalArgumentException(
          values.length + " feature values are not whole rows of " + count + " nodes");
    }
    if ((long) values.length * enc.bytesPerValue() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(values.length + " feature values do not fit one row");
    }
    byte[] out = new byte[enc.bytesPerValue() * values.length];
    encodeFeaturesInto(values, values.length, enc, out, 0);
    return out;
  }

  /**
   * Encodes {@code values[0 .. count)} into {@code out} from byte {@code offset}: the bytes {@link
   * #encodeFeatures} gives for them, so rows can be encoded a chunk at a time.
   */
  public static void encodeFeaturesInto(
      float[] values, int count, FeatureEncoding enc, byte[] out, int offset) {
    if (enc == FeatureEncoding.F32) {
      ByteBuffer.wrap(out, offset, 4 * count)
          .order(ByteOrder.LITTLE_ENDIAN)
          .asFloatBuffer()
          .put(values, 0, count);
    } else if (enc == FeatureEncoding.F16) {
      for (int i = 0; i < count; i++) {
        SHORT_LE.set(out, offset + 2 * i, Half.fromFloat(values[i]));
      }
    } else {
      throw new IllegalArgumentException(
          "feature encoding "
              + enc.id()
              + (enc.stored()
                  ? " copies the store's rows, it does not encode floats"
                  : " has no bytes"));
    }
  }

  /** Decodes the ids, layer sizes, blocks and labels of a row (features stay encoded). */
  public static MiniBatch decode(EncodedBatch e) {
    int[] layerSizes = ints(e, ShardSchema.LAYER_SIZES, e.layerSizes(), -1);
    if (layerSizes.length < 1) {
      throw bad(e, ShardSchema.LAYER_SIZES, "is empty", "at least the seed count");
    }
    int layers = layerSizes.length - 1;
    if (layerSizes[0] != e.numSeeds()) {
      throw bad(
          e, ShardSchema.LAYER_SIZES, "starts with " + layerSizes[0], "num_seeds " + e.numSeeds());
    }
    for (int h = 0; h <= layers; h++) {
      if (layerSizes[h] < 0 || (h > 0 && layerSizes[h] < layerSizes[h - 1])) {
        throw bad(
            e,
            ShardSchema.LAYER_SIZES,
            "has entry " + h + " = " + layerSizes[h],
            "non-negative, non-decreasing sizes");
      }
    }
    int[] nodes = ints(e, ShardSchema.NODES, e.nodes(), layerSizes[layers]);
    int[] labels = ints(e, ShardSchema.LABELS, e.labels(), layerSizes[0]);
    long ptrLen = 0;
    for (int h = 1; h <= layers; h++) {
      ptrLen += layerSizes[h - 1] + 1L;
    }
    if (e.indptr().length != 4 * ptrLen) {
      throw bad(
          e,
          ShardSchema.INDPTR,
          "has " + e.indptr().length + " bytes",
          4 * ptrLen + " (int32 per row + 1, per block)");
    }
    ByteBuffer ptrBuf = ByteBuffer.wrap(e.indptr()).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer idxBuf = ByteBuffer.wrap(e.indices()).order(ByteOrder.LITTLE_ENDIAN);
    int[][] indptr = new int[layers][];
    int[][] indices = new int[layers][];
    int ptrPos = 0;
    int idxPos = 0;
    for (int h = 1; h <= layers; h++) {
      int[] p = new int[layerSizes[h - 1] + 1];
      ptrBuf.position(ptrPos).asIntBuffer().get(p);
      ptrPos += 4 * p.length;
      int edges = p[p.length - 1];
      if (p[0] != 0 || edges < 0 || 4L * edges > e.indices().length - (long) idxPos) {
        throw bad(
            e,
            ShardSchema.INDPTR,
            "block " + h + " spans [" + p[0] + ", " + edges + ")",
            "row pointers from 0 within the " + e.indices().length / 4 + " indices");
      }
      int[] ix = new int[edges];
      idxBuf.position(idxPos).asIntBuffer().get(ix);
      idxPos += 4 * edges;
      indptr[h - 1] = p;
      indices[h - 1] = ix;
    }
    if (idxPos != e.indices().length) {
      throw bad(
          e,
          ShardSchema.INDICES,
          "has " + e.indices().length + " bytes",
          idxPos + " (the blocks' row pointers end there)");
    }
    LinkPairs pairs = e.pairs() == null ? null : decodePairs(e, layerSizes[0]);
    return new MiniBatch(e.epoch(), e.batch(), nodes, layerSizes, indptr, indices, labels, pairs);
  }

  /** The positive pairs (the seeds) of a link-prediction row. */
  public static int positives(EncodedBatch e) {
    int[] all = ints(e, ShardSchema.PAIRS, e.pairs(), -1);
    int n = all.length / 3;
    int pos = 0;
    for (int i = 2 * n; i < 3 * n; i++) {
      pos += all[i];
    }
    return pos;
  }

  private static LinkPairs decodePairs(EncodedBatch e, int seeds) {
    int[][] p = RowInts.decodePairs(row(e), e.pairs());
    for (int[] endpoints : new int[][] {p[0], p[1]}) {
      for (int v : endpoints) {
        if (v < 0 || v >= seeds) {
          throw bad(e, ShardSchema.PAIRS, "has endpoint " + v, "local indices below " + seeds);
        }
      }
    }
    return new LinkPairs(p[0], p[1], p[2]);
  }

  /** Number of inline feature values of a row ({@code 0} without features). */
  public static int featureValues(EncodedBatch e, FeatureEncoding enc) {
    if (e.features() == null || enc == FeatureEncoding.NONE) {
      return 0;
    }
    if (enc.stored()) {
      throw new IllegalArgumentException(
          enc.id() + " rows are decoded with the store's parameters (decodeStoredFeatures)");
    }
    if (e.features().length % enc.bytesPerValue() != 0) {
      throw bad(
          e,
          ShardSchema.FEATURES,
          "has " + e.features().length + " bytes",
          "a multiple of " + enc.bytesPerValue() + " (" + enc.id() + ")");
    }
    return e.features().length / enc.bytesPerValue();
  }

  /**
   * Decodes the inline features of a row into {@code out} from {@code outOffset} as float32 (f16
   * values widen exactly).
   *
   * @return the number of values written ({@link #featureValues})
   */
  public static int decodeFeatures(
      EncodedBatch e, FeatureEncoding enc, float[] out, int outOffset) {
    int n = featureValues(e, enc);
    if (n == 0) {
      return 0;
    }
    if (outOffset < 0 || out.length - outOffset < n) {
      throw new IllegalArgumentException(
          "output has room for " + (out.length - outOffset) + " values, batch needs " + n);
    }
    byte[] src = e.features();
    if (enc == FeatureEncoding.F32) {
      ByteBuffer.wrap(src).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out, outOffset, n);
    } else {
      for (int i = 0; i < n; i++) {
        out[outOffset + i] = Half.toFloat((short) SHORT_LE.get(src, 2 * i));
      }
    }
    return n;
  }

  /**
   * Decodes the inline rows of a row whose shards copy the graph store's encoded rows ({@link
   * FeatureEncoding#stored}): {@code rows} rows of {@code decoder.rowBytes()} bytes, decoded with
   * the store's {@code decoder} into a new array of {@code rows * dim} floats, the values the
   * store's own reader gives.
   */
  public static float[] decodeStoredFeatures(
      EncodedBatch e, FeatureEncoding enc, int rows, RowDecoder decoder, int dim) {
    byte[] src = e.features();
    long want = (long) rows * decoder.rowBytes();
    if (src == null || src.length != want) {
      throw bad(
          e,
          ShardSchema.FEATURES,
          "has " + (src == null ? "no" : src.length) + " bytes",
          want
              + " ("
              + rows
              + " rows of "
              + decoder.rowBytes()
              + " bytes, "
              + enc.id()
              + " as the graph store encodes them)");
    }
    float[] out = new float[Math.multiplyExact(rows, dim)];
    ByteBuffer buf = ByteBuffer.wrap(src).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < rows; i++) {
      decoder.decode(buf, i * decoder.rowBytes(), out, i * dim);
    }
    return out;
  }

  /** Decodes the inline features of a row into a new array. */
  public static float[] decodeFeatures(EncodedBatch e, FeatureEncoding enc) {
    float[] out = new float[featureValues(e, enc)];
    decodeFeatures(e, enc, out, 0);
    return out;
  }

  private static int[] ints(EncodedBatch e, String column, byte[] bytes, int expected) {
    return RowInts.decode(row(e), column, bytes, expected);
  }

  private static RowInts.Row row(EncodedBatch e) {
    return new RowInts.Row("shard row", e.epoch(), e.batch());
  }

  private static InvalidInputException bad(
      EncodedBatch e, String column, String what, String expected) {
    return row(e).bad(column, what, expected);
  }
}
