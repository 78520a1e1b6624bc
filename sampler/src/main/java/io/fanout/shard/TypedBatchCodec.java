package io.fanout.shard;

import io.fanout.sample.LinkPairs;
import io.fanout.sample.SeedLabels;
import io.fanout.sample.TypedBlocks;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.store.InvalidInputException;

/**
 * Converts a {@link TypedMiniBatch} to and from a typed shard row ({@link EncodedTypedBatch}), as
 * specified in {@code docs/formats.md} ("Typed mini-batch shards"): every array column is raw
 * little-endian int32, concatenated in a fixed order (types in type order; blocks hop 1 first,
 * relations in relation order within a hop).
 *
 * <p>{@link #decode} checks the row's structure against the {@link TypedBatchShape} (array lengths
 * against {@code layer_sizes}, row pointers, indices within their source type's nodes) and fails
 * with {@link InvalidInputException} naming the batch and the column.
 */
public final class TypedBatchCodec {
  private TypedBatchCodec() {}

  /** Encodes {@code b}. */
  public static EncodedTypedBatch encode(TypedMiniBatch b) {
    int types = b.numTypes();
    int layers = b.layers();
    int relations = b.numRelations();
    int[] sizes = new int[types * (layers + 1)];
    long nodeCount = 0;
    for (int t = 0; t < types; t++) {
      for (int h = 0; h <= layers; h++) {
        sizes[t * (layers + 1) + h] = b.layerSize(t, h);
      }
      nodeCount += b.nodes(t).length;
    }
    long ptrLen = 0;
    long idxLen = 0;
    for (int h = 1; h <= layers; h++) {
      for (int r = 0; r < relations; r++) {
        ptrLen += b.indptr(h, r).length;
        idxLen += b.indices(h, r).length;
      }
    }
    if (Math.max(Math.max(ptrLen, idxLen), nodeCount) > Integer.MAX_VALUE / 4) {
      throw new IllegalArgumentException("batch " + b.batch() + " is too large for a shard row");
    }
    byte[] nodes = new byte[(int) (4 * nodeCount)];
    RowInts.Writer nodeBuf = new RowInts.Writer(nodes);
    for (int t = 0; t < types; t++) {
      nodeBuf.put(b.nodes(t));
    }
    byte[] indptr = new byte[(int) (4 * ptrLen)];
    byte[] indices = new byte[(int) (4 * idxLen)];
    RowInts.Writer ptrBuf = new RowInts.Writer(indptr);
    RowInts.Writer idxBuf = new RowInts.Writer(indices);
    for (int h = 1; h <= layers; h++) {
      for (int r = 0; r < relations; r++) {
        ptrBuf.put(b.indptr(h, r));
        idxBuf.put(b.indices(h, r));
      }
    }
    return new EncodedTypedBatch(
        b.epoch(),
        b.batch(),
        b.numSeeds(),
        b.seedType(),
        RowInts.encode(sizes),
        nodes,
        indptr,
        indices,
        RowInts.encode(b.labels()),
        b.multiLabel() ? RowInts.encode(b.labelPtr()) : null,
        b.multiLabel() ? RowInts.encode(b.labelIds()) : null,
        b.pairs() == null ? null : RowInts.encodePairs(b.pairs()),
        null);
  }

  /** Decodes a row of shards whose batches have {@code shape}. */
  public static TypedMiniBatch decode(EncodedTypedBatch e, TypedBatchShape shape) {
    int types = shape.numTypes();
    int layers = shape.layers();
    int relations = shape.numRelations();
    if (e.seedType() < 0 || e.seedType() >= types) {
      throw bad(e, ShardSchema.SEED_TYPE, "is " + e.seedType(), "a type below " + types);
    }
    int[] flat = ints(e, ShardSchema.LAYER_SIZES, e.layerSizes(), (long) types * (layers + 1));
    int[][] sizes = new int[types][layers + 1];
    int link = e.pairs() == null ? -1 : shape.linkRelation();
    if (e.pairs() != null && (link < 0 || shape.relationDst()[link] != e.seedType())) {
      throw bad(
          e,
          ShardSchema.PAIRS,
          "is present",
          link < 0
              ? "no pairs in shards without a link relation"
              : "pairs only with the link relation's destination type as seed type");
    }
    long nodeCount = 0;
    for (int t = 0; t < types; t++) {
      System.arraycopy(flat, t * (layers + 1), sizes[t], 0, layers + 1);
      int want0 = t == e.seedType() ? e.numSeeds() : 0;
      boolean linkSource = link >= 0 && t == shape.relationSrc()[link];
      if (sizes[t][0] != want0 && !(linkSource && t != e.seedType())) {
        throw bad(
            e,
            ShardSchema.LAYER_SIZES,
            "gives type " + t + " " + sizes[t][0] + " seeds",
            want0 + " (num_seeds for the seed type, 0 for the others)");
      }
      for (int h = 1; h <= layers; h++) {
        if (sizes[t][h] < sizes[t][h - 1]) {
          throw bad(
              e,
              ShardSchema.LAYER_SIZES,
              "has type " + t + " hop " + h + " = " + sizes[t][h],
              "non-decreasing sizes per type");
        }
      }
      nodeCount += sizes[t][layers];
    }
    int[] allNodes = ints(e, ShardSchema.NODES, e.nodes(), nodeCount);
    int[][] nodes = new int[types][];
    int at = 0;
    for (int t = 0; t < types; t++) {
      nodes[t] = java.util.Arrays.copyOfRange(allNodes, at, at + sizes[t][layers]);
      at += sizes[t][layers];
    }
    int[] labels = ints(e, ShardSchema.LABELS, e.labels(), e.numSeeds());
    long ptrLen = 0;
    for (int h = 1; h <= layers; h++) {
      for (int r = 0; r < relations; r++) {
        ptrLen += sizes[shape.relationDst()[r]][h - 1] + 1L;
      }
    }
    int[] allPtr = ints(e, ShardSchema.INDPTR, e.indptr(), ptrLen);
    int[] allIdx = ints(e, ShardSchema.INDICES, e.indices(), -1);
    int[][][] indptr = new int[layers][relations][];
    int[][][] indices = new int[layers][relations][];
    int ptrPos = 0;
    int idxPos = 0;
    for (int h = 1; h <= layers; h++) {
      for (int r = 0; r < relations; r++) {
        int rows = sizes[shape.relationDst()[r]][h - 1];
        int[] p = java.util.Arrays.copyOfRange(allPtr, ptrPos, ptrPos + rows + 1);
        ptrPos += rows + 1;
        for (int i = 0; i < rows; i++) {
          if (p[i + 1] < p[i]) {
            throw bad(
                e,
                ShardSchema.INDPTR,
                "block (hop " + h + ", relation " + r + ") decreases at row " + i,
                "non-decreasing row pointers");
          }
        }
        int edges = p[rows];
        if (p[0] != 0 || edges > allIdx.length - idxPos) {
          throw bad(
              e,
              ShardSchema.INDPTR,
              "block (hop " + h + ", relation " + r + ") spans [" + p[0] + ", " + edges + ")",
              "row pointers from 0 within the " + allIdx.length + " indices");
        }
        int[] ix = java.util.Arrays.copyOfRange(allIdx, idxPos, idxPos + edges);
        idxPos += edges;
        int bound = sizes[shape.relationSrc()[r]][h];
        for (int j = 0; j < edges; j++) {
          if (ix[j] < 0 || ix[j] >= bound) {
            throw bad(
                e,
                ShardSchema.INDICES,
                "block (hop " + h + ", relation " + r + ") has index " + ix[j],
                "indices into the source type's first " + bound + " nodes");
          }
        }
        indptr[h - 1][r] = p;
        indices[h - 1][r] = ix;
      }
    }
    if (idxPos != allIdx.length) {
      throw bad(
          e,
          ShardSchema.INDICES,
          "has " + allIdx.length + " int32",
          idxPos + " (the blocks' row pointers end there)");
    }
    int[] labelPtr = null;
    int[] labelIds = null;
    if ((e.labelPtr() == null) != (e.labelIds() == null)) {
      throw bad(e, ShardSchema.LABEL_PTR, "and label_ids disagree", "both or neither");
    }
    if (e.labelPtr() != null) {
      labelPtr = ints(e, ShardSchema.LABEL_PTR, e.labelPtr(), e.numSeeds() + 1L);
      labelIds = ints(e, ShardSchema.LABEL_IDS, e.labelIds(), -1);
      if (labelPtr[0] != 0) {
        throw bad(e, ShardSchema.LABEL_PTR, "starts at " + labelPtr[0], "0");
      }
      for (int i = 0; i < e.numSeeds(); i++) {
        if (labelPtr[i + 1] < labelPtr[i]) {
          throw bad(
              e, ShardSchema.LABEL_PTR, "is not a row pointer array", "non-decreasing from 0");
        }
      }
      if (labelPtr[e.numSeeds()] != labelIds.length) {
        throw bad(
            e,
            ShardSchema.LABEL_IDS,
            "has " + labelIds.length + " int32",
            labelPtr[e.numSeeds()] + " (label_ptr ends there)");
      }
    }
    LinkPairs pairs =
        link < 0
            ? null
            : decodePairs(
                e, sizes[shape.relationSrc()[link]][0], sizes[shape.relationDst()[link]][0]);
    return new TypedMiniBatch(
        e.epoch(),
        e.batch(),
        e.seedType(),
        new TypedBlocks(nodes, sizes, indptr, indices),
        new SeedLabels(labels, labelPtr, labelIds),
        pairs);
  }

  /** The pairs column: sources below {@code srcSeeds}, destinations below {@code dstSeeds}. */
  private static LinkPairs decodePairs(EncodedTypedBatch e, int srcSeeds, int dstSeeds) {
    int[][] p = RowInts.decodePairs(row(e), e.pairs());
    for (int i = 0; i < p[0].length; i++) {
      if (p[0][i] < 0 || p[0][i] >= srcSeeds) {
        throw bad(
            e,
            ShardSchema.PAIRS,
            "has source " + p[0][i],
            "indices below the " + srcSeeds + " seeds");
      }
      if (p[1][i] < 0 || p[1][i] >= dstSeeds) {
        throw bad(
            e,
            ShardSchema.PAIRS,
            "has destination " + p[1][i],
            "indices below the " + dstSeeds + " seeds");
      }
      if (p[2][i] != 0 && p[2][i] != 1) {
        throw bad(e, ShardSchema.PAIRS, "has label " + p[2][i], "0 or 1");
      }
    }
    return new LinkPairs(p[0], p[1], p[2]);
  }

  /** Sampled edges of a row (its indices), without decoding it. */
  public static long edges(EncodedTypedBatch e) {
    return e.indices().length / 4;
  }

  private static int[] ints(EncodedTypedBatch e, String column, byte[] bytes, long expected) {
    return RowInts.decode(row(e), column, bytes, expected);
  }

  private static RowInts.Row row(EncodedTypedBatch e) {
    return new RowInts.Row("typed shard row", e.epoch(), e.batch());
  }

  private static InvalidInputException bad(
      EncodedTypedBatch e, String column, String what, String expected) {
    return row(e).bad(column, what, expected);
  }
}
