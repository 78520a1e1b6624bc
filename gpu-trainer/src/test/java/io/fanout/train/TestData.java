package io.fanout.train;

import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.VertexTable;
import io.fanout.nn.FeatureNormKind;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CounterRng;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/**
 * Test-only loading of the canonical datasets (vertices.parquet, edges.parquet) straight from
 * Parquet into heap tables, with an undirected, deduplicated in-neighbor CSR without self-loops.
 */
final class TestData {
  final CsrGraph csr;
  final ArrayFeatures features;
  final ArrayVertices vertices;
  final int classes;

  private TestData(CsrGraph csr, ArrayFeatures f, ArrayVertices v, int classes) {
    this.csr = csr;
    this.features = f;
    this.vertices = v;
    this.classes = classes;
  }

  /** Shuffled epochs of batches over the training split, reading {@code rows} as features. */
  SampledEpochs trainEpochs(
      FeatureTable rows, int[] fanouts, int batchSize, long seed, String norm, int threads) {
    return new SampledEpochs(
        csr,
        vertices,
        rows,
        vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
        fanouts,
        batchSize,
        seed,
        true,
        FeatureNormKind.parse(norm),
        threads);
  }

  static Path datasetDir(String name) {
    String root = System.getProperty("fanout.datasets", "../data");
    Path p = Path.of(root, name);
    if (!Files.isDirectory(p) && name.equals("cora")) {
      p = Path.of(System.getProperty("fanout.repo", ".."), "data", "cora");
    }
    return p;
  }

  static final class ArrayFeatures implements FeatureTable {
    final float[] rows;
    final int n;
    final int dim;

    ArrayFeatures(float[] rows, int n, int dim) {
      this.rows = rows;
      this.n = n;
      this.dim = dim;
    }

    @Override
    public int numVertices() {
      return n;
    }

    @Override
    public int dim() {
      return dim;
    }

    @Override
    public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
      for (int i = 0; i < count; i++) {
        System.arraycopy(rows, ids[from + i] * dim, out, outOffset + i * dim, dim);
      }
    }
  }

  static final class ArrayVertices implements VertexTable {
    final int[] labels;
    final byte[] splits;

    ArrayVertices(int[] labels, byte[] splits) {
      this.labels = labels;
      this.splits = splits;
    }

    @Override
    public int numVertices() {
      return labels.length;
    }

    @Override
    public int label(int v) {
      return labels[v];
    }

    @Override
    public byte split(int v) {
      return splits[v];
    }

    int[] ofSplit(byte code) {
      int c = 0;
      for (byte s : splits) {
        c += s == code ? 1 : 0;
      }
      int[] out = new int[c];
      for (int v = 0, i = 0; v < splits.length; v++) {
        if (splits[v] == code) {
          out[i++] = v;
        }
      }
      return out;
    }
  }

  private static List<Group> readAll(Path file) throws IOException {
    List<Group> out = new ArrayList<>();
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      PageReadStore pages;
      while ((pages = r.readNextRowGroup()) != null) {
        RecordReader<Group> rr = io.getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          out.add(rr.read());
        }
      }
    }
    return out;
  }

  static TestData load(String name) throws IOException {
    String snapshots = System.getProperty(SNAPSHOTS_PROPERTY);
    if (snapshots != null) {
      return readSnapshot(Path.of(snapshots, name + ".testdata"));
    }
    Path dir = datasetDir(name);
    List<Group> vs = readAll(dir.resolve("vertices.parquet"));
    int n = vs.size();
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = vs.get(i).getLong("id", 0);
    }
    long[] sorted = ids.clone();
    Arrays.sort(sorted);
    int dim = -1;
    float[] feats = null;
    int[] labels = new int[n];
    byte[] splits = new byte[n];
    int classes = 0;
    for (int i = 0; i < n; i++) {
      Group g = vs.get(i);
      int v = Arrays.binarySearch(sorted, ids[i]);
      labels[v] = g.getFieldRepetitionCount("label") > 0 ? g.getInteger("label", 0) : -1;
      classes = Math.max(classes, labels[v] + 1);
      splits[v] =
          g.getFieldRepetitionCount("split") > 0
              ? (byte) StoreLayout.splitCode(g.getString("split", 0))
              : StoreLayout.SPLIT_NONE;
      Group list = g.getGroup("features", 0);
      int cnt = list.getFieldRepetitionCount(0);
      if (feats == null) {
        dim = cnt;
        feats = new float[n * dim];
      }
      for (int j = 0; j < cnt; j++) {
        feats[v * dim + j] = list.getGroup(0, j).getFloat(0, 0);
      }
    }
    List<Group> es = readAll(dir.resolve("edges.parquet"));
    long[] pairs = new long[es.size() * 2];
    int m = 0;
    for (Group g : es) {
      int s = Arrays.binarySearch(sorted, g.getLong("src", 0));
      int d = Arrays.binarySearch(sorted, g.getLong("dst", 0));
      if (s < 0 || d < 0 || s == d) {
        continue;
      }
      pairs[m++] = ((long) d << 32) | s;
      pairs[m++] = ((long) s << 32) | d;
    }
    long[] p = Arrays.copyOf(pairs, m);
    Arrays.sort(p);
    long[] indptr = new long[n + 1];
    int[] idx = new int[m];
    int e = 0;
    long prev = -1;
    for (long x : p) {
      if (x == prev) {
        continue;
      }
      prev = x;
      int d = (int) (x >>> 32);
      idx[e++] = (int) x;
      indptr[d + 1]++;
    }
    for (int i = 0; i < n; i++) {
      indptr[i + 1] += indptr[i];
    }
    return new TestData(
        new ArrayCsrGraph(indptr, Arrays.copyOf(idx, e)),
        new ArrayFeatures(feats, n, dim),
        new ArrayVertices(labels, splits),
        classes);
  }

  /**
   * Names the folder of {@link #writeSnapshot} files that {@link #load} reads instead of Parquet:
   * for a GPU machine whose carried class path has no Hadoop (docs/gpu.md).
   */
  static final String SNAPSHOTS_PROPERTY = "fanout.testdata.snapshots";

  private static final int SNAPSHOT_MAGIC = 0x46545431; // "FTT1"

  /**
   * Writes {@code dataset}'s tables as loaded by {@link #load} to {@code file}, in a plain binary
   * form that {@link #readSnapshot} reads back without Parquet or Hadoop.
   */
  static void writeSnapshot(String dataset, Path file) throws IOException {
    writeSnapshot(load(dataset), file);
  }

  /** Writes the tables {@code d} to {@code file} in {@link #writeSnapshot(String, Path)}'s form. */
  static void writeSnapshot(TestData d, Path file) throws IOException {
    ArrayCsrGraph g = (ArrayCsrGraph) d.csr;
    int n = d.vertices.labels.length;
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16))) {
      out.writeInt(SNAPSHOT_MAGIC);
      out.writeInt(n);
      out.writeInt(d.features.dim);
      out.writeInt(d.classes);
      out.writeLong(g.numEdges());
      for (int v = 0; v <= n; v++) {
        out.writeLong(v == n ? g.numEdges() : g.rowStart(v));
      }
      for (long e = 0; e < g.numEdges(); e++) {
        out.writeInt(g.neighbor(e));
      }
      for (float f : d.features.rows) {
        out.writeFloat(f);
      }
      for (int l : d.vertices.labels) {
        out.writeInt(l);
      }
      out.write(d.vertices.splits);
    }
  }

  static TestData readSnapshot(Path file) throws IOException {
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
      if (in.readInt() != SNAPSHOT_MAGIC) {
        throw new IOException(file + ": not a TestData snapshot (bad magic)");
      }
      int n = in.readInt();
      int dim = in.readInt();
      int classes = in.readInt();
      int m = Math.toIntExact(in.readLong());
      long[] indptr = new long[n + 1];
      for (int v = 0; v <= n; v++) {
        indptr[v] = in.readLong();
      }
      int[] idx = new int[m];
      for (int e = 0; e < m; e++) {
        idx[e] = in.readInt();
      }
      float[] feats = new float[n * dim];
      for (int i = 0; i < feats.length; i++) {
        feats[i] = in.readFloat();
      }
      int[] labels = new int[n];
      for (int v = 0; v < n; v++) {
        labels[v] = in.readInt();
      }
      byte[] splits = new byte[n];
      in.readFully(splits);
      return new TestData(
          new ArrayCsrGraph(indptr, idx),
          new ArrayFeatures(feats, n, dim),
          new ArrayVertices(labels, splits),
          classes);
    }
  }

  /**
   * Writes snapshots of the named datasets into a folder: {@code TestData OUT_DIR NAME...}, run
   * from the test class path where Parquet reading works.
   */
  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    Files.createDirectories(out);
    for (int i = 1; i < args.length; i++) {
      writeSnapshot(args[i], out.resolve(args[i] + ".testdata"));
      System.out.println("wrote " + out.resolve(args[i] + ".testdata"));
    }
  }

  /** A seeded random graph of {@code n} vertices, {@code dim} features, 3 classes. */
  static TestData random(int n, int avgDeg, int dim, long seed) {
    long[] pairs = new long[n * avgDeg * 2];
    int m = 0;
    int[] labels = new int[n];
    byte[] splits = new byte[n];
    float[] feats = new float[n * dim];
    for (int v = 0; v < n; v++) {
      labels[v] = v % 3;
      splits[v] = (byte) (1 + (int) (CounterRng.uniform(seed + 1, v) * 3));
      for (int j = 0; j < dim; j++) {
        feats[v * dim + j] =
            CounterRng.uniform(seed + 2, (long) v * dim + j) + (j % 3 == labels[v] ? 2f : 0f);
      }
      for (int k = 0; k < avgDeg && n > 1; k++) {
        // Homophilous: even edges join vertices of the same class (same residue mod 3).
        int u = (int) (CounterRng.uniform(seed + 3, (long) v * avgDeg + k) * n);
        if (k % 2 == 0) {
          u = Math.min(n - 1, u - u % 3 + labels[v]);
          u = u % 3 == labels[v] ? u : labels[v];
        }
        if (u != v) {
          pairs[m++] = ((long) v << 32) | u;
          pairs[m++] = ((long) u << 32) | v;
        }
      }
    }
    long[] p = Arrays.copyOf(pairs, m);
    Arrays.sort(p);
    long[] indptr = new long[n + 1];
    int[] idx = new int[m];
    int e = 0;
    long prev = -1;
    for (long x : p) {
      if (x == prev) {
        continue;
      }
      prev = x;
      idx[e++] = (int) x;
      indptr[(int) (x >>> 32) + 1]++;
    }
    for (int i = 0; i < n; i++) {
      indptr[i + 1] += indptr[i];
    }
    return new TestData(
        new ArrayCsrGraph(indptr, Arrays.copyOf(idx, e)),
        new ArrayFeatures(feats, n, dim),
        new ArrayVertices(labels, splits),
        3);
  }
}
