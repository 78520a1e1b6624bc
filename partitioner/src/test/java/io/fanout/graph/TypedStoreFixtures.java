package io.fanout.graph;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.FeatureParams;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.OutputCommit;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import io.fanout.store.WeightFileWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a typed graph store with the real writers and commit protocol, without Spark, for reader
 * tests: a {@link TypedGraph} in heap arrays goes in, a store directory in the layout of {@code
 * docs/formats.md} (typed graph store) comes out.
 */
public final class TypedStoreFixtures {
  private TypedStoreFixtures() {}

  /**
   * Writes {@code g} at {@code store}: type {@code t} cut into partitions of {@code sizes[t]}
   * vertices, f32 features, the label sets {@code labelSets[t]} (null for a type without), and the
   * weights of each relation that has them ({@link TypedGraph#weights}).
   */
  public static StoreManifest write(Path store, TypedGraph g, int[][] sizes, int[][][] labelSets) {
    return write(store, g, sizes, labelSets, new FeatureParams[g.schema().numTypes()]);
  }

  /**
   * As {@link #write(Path, TypedGraph, int[][], int[][][])}, type {@code t}'s features stored in
   * {@code encodings[t]} ({@code f32}, {@code f16}, {@code int8} or {@code int4}, the affine codes
   * over the type's per-column range; null or a null entry: f32).
   */
  public static StoreManifest write(
      Path store, TypedGraph g, int[][] sizes, int[][][] labelSets, String[] encodings) {
    FeatureParams[] params = new FeatureParams[g.schema().numTypes()];
    for (int t = 0; t < params.length; t++) {
      if (encodings != null && encodings[t] != null && g.schema().type(t).hasFeatures()) {
        params[t] = params(g, t, StoreLayout.encodingCode(encodings[t]));
      }
    }
    return write(store, g, sizes, labelSets, params);
  }

  /**
   * As {@link #write(Path, TypedGraph, int[][], int[][][])}, type {@code t}'s features encoded as
   * {@code params[t]} says (null: f32), its parameters in {@code types/<type>/features/params.qnt}.
   */
  public static StoreManifest write(
      Path store, TypedGraph g, int[][] sizes, int[][][] labelSets, FeatureParams[] params) {
    OutputCommit.Run run = StoreOutput.COMMIT.begin(store);
    Path staging = run.dir();
    TypedSchema s = g.schema();
    StoreManifest m = new StoreManifest();
    m.format = StoreManifest.TYPED_FORMAT;
    m.types = new ArrayList<>();
    m.relations = new ArrayList<>();
    m.featureEncoding = "";
    int partitions = 0;
    for (int t = 0; t < s.numTypes(); t++) {
      TypedSchema.VertexType vt = s.type(t);
      Path dir = staging.resolve(StoreLayout.typeDir(vt.name()));
      StoreManifest.TypeEntry e = new StoreManifest.TypeEntry();
      e.name = vt.name();
      e.firstVertex = vt.firstVertex();
      e.vertices = vt.count();
      e.firstPartition = partitions;
      e.partitions = sizes[t].length;
      e.featureDim = vt.featureDim();
      FeatureParams fp =
          !vt.hasFeatures()
              ? null
              : params[t] != null
                  ? params[t]
                  : FeatureParams.plain(StoreLayout.ENCODING_F32, vt.featureDim());
      e.featureEncoding = fp == null ? "" : StoreLayout.encodingName(fp.encoding);
      if (fp != null && FeatureParams.hasFile(fp.encoding)) {
        fp.write(dir.resolve(StoreLayout.FEATURE_PARAMS));
      }
      e.multiLabel = labelSets[t] != null;
      e.idType = "long";
      long[] splits = new long[4];
      int classes = 0;
      long first = 0;
      for (int p = 0; p < sizes[t].length; p++) {
        int n = sizes[t][p];
        try (NodesFileWriter nodes =
            new NodesFileWriter(dir.resolve(StoreLayout.nodesFile(p)), p, first, n)) {
          for (int v = (int) first; v < first + n; v++) {
            nodes.write(g.vertices(t).label(v), g.vertices(t).split(v));
            splits[g.vertices(t).split(v)]++;
            classes = Math.max(classes, g.vertices(t).label(v) + 1);
          }
          nodes.finish();
        }
        if (vt.hasFeatures()) {
          int dim = vt.featureDim();
          FeatureEncoder enc = new FeatureEncoder(fp);
          byte[] encoded = new byte[fp.rowBytes()];
          try (FeatureFileWriter f =
              new FeatureFileWriter(dir.resolve(StoreLayout.featuresFile(p)), first, n, fp)) {
            float[] row = new float[dim];
            for (int v = (int) first; v < first + n; v++) {
              g.features(t).gather(new int[] {v}, 0, 1, row, 0);
              enc.encode(row, 0, encoded);
              f.writeEncodedRow(encoded);
            }
            f.finish();
          }
        }
        if (labelSets[t] != null) {
          try (CsrFileWriter w =
              new CsrFileWriter(dir.resolve(StoreLayout.labelSetsFile(p)), p, first, n)) {
            for (int v = (int) first; v < first + n; v++) {
              for (int c : labelSets[t][v]) {
                w.addNeighbor(c);
                classes = Math.max(classes, c + 1);
              }
              w.endRow();
            }
            w.finish();
          }
        }
        m.partitionTable.add(
            new StoreManifest.Partition(partitions + p, vt.firstVertex() + first, n, 0));
        first += n;
      }
      e.classes = classes;
      e.splitCounts = splitCounts(splits);
      m.types.add(e);
      partitions += sizes[t].length;
    }
    for (int r = 0; r < s.numRelations(); r++) {
      TypedSchema.Relation rel = s.relation(r);
      CsrGraph csr = g.inNeighbors(r);
      StoreManifest.TypeEntry dst = m.types.get(rel.dstType());
      StoreManifest.RelationEntry e = new StoreManifest.RelationEntry();
      e.name = rel.name();
      e.srcType = s.type(rel.srcType()).name();
      e.dstType = dst.name;
      e.partitionEdges = new long[dst.partitions];
      Path dir = staging.resolve(StoreLayout.relationDir(rel.name()));
      long first = 0;
      long min = Long.MAX_VALUE;
      long max = 0;
      for (int p = 0; p < dst.partitions; p++) {
        int n = sizes[rel.dstType()][p];
        EdgeWeights weights = g.weights(r);
        try (CsrFileWriter w = new CsrFileWriter(dir.resolve(StoreLayout.csrFile(p)), p, first, n);
            WeightFileWriter ww =
                weights == null
                    ? null
                    : new WeightFileWriter(dir.resolve(StoreLayout.weightsFile(p)), p, first, n)) {
          for (int v = (int) first; v < first + n; v++) {
            for (long i = csr.rowStart(v); i < csr.rowEnd(v); i++) {
              w.addNeighbor(csr.neighbor(i));
              if (ww != null) {
                ww.add(weights.weight(i));
              }
            }
            w.endRow();
            min = Math.min(min, csr.degree(v));
            max = Math.max(max, csr.degree(v));
          }
          e.partitionEdges[p] = w.edgesWritten();
          w.finish();
          if (ww != null) {
            ww.finish();
          }
        }
        m.partitionTable.get(dst.firstPartition + p).numEdges += e.partitionEdges[p];
        first += n;
      }
      e.edges = csr.numEdges();
      e.weighted = g.weights(r) != null;
      m.weighted |= e.weighted;
      e.degree = new StoreManifest.Degree(dst.vertices == 0 ? 0 : min, max, 0);
      m.relations.add(e);
      m.edges += e.edges;
    }
    m.vertices = s.numVertices();
    m.partitions = partitions;
    m.inputFingerprint = "typed fixture";
    m.files = StoreOutput.files(staging);
    StoreOutput.COMMIT.publish(run, m, true);
    return m;
  }

  /**
   * Per type the affine parameters ({@code int8} or {@code int4}) of its rows' per-column minimum
   * and maximum, null for a featureless type.
   */
  public static FeatureParams[] affine(TypedGraph g, int encoding) {
    FeatureParams[] out = new FeatureParams[g.schema().numTypes()];
    for (int t = 0; t < out.length; t++) {
      if (g.schema().type(t).featureDim() > 0) {
        out[t] = params(g, t, encoding);
      }
    }
    return out;
  }

  /**
   * The parameters of type {@code t}'s rows in {@code encoding}: the affine codes over the type's
   * per-column range for int8 and int4, plain otherwise.
   */
  private static FeatureParams params(TypedGraph g, int t, int encoding) {
    int dim = g.schema().type(t).featureDim();
    if (encoding != StoreLayout.ENCODING_INT8 && encoding != StoreLayout.ENCODING_INT4) {
      return FeatureParams.plain(encoding, dim);
    }
    float[] min = new float[dim];
    float[] max = new float[dim];
    java.util.Arrays.fill(min, Float.POSITIVE_INFINITY);
    java.util.Arrays.fill(max, Float.NEGATIVE_INFINITY);
    float[] row = new float[dim];
    for (int v = 0; v < g.schema().type(t).count(); v++) {
      g.features(t).gather(new int[] {v}, 0, 1, row, 0);
      for (int c = 0; c < dim; c++) {
        min[c] = Math.min(min[c], row[c]);
        max[c] = Math.max(max[c], row[c]);
      }
    }
    return FeatureParams.affine(encoding, min, max);
  }

  private static Map<String, Long> splitCounts(long[] s) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String name : new String[] {"train", "val", "test", "none"}) {
      out.put(name, s[StoreLayout.splitCode(name)]);
    }
    return out;
  }
}
