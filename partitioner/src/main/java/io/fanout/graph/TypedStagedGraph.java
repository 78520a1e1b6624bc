package io.fanout.graph;

import io.fanout.store.StoreLayout;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The shape of a typed store staged in a folder before its manifest exists (or of a published one):
 * per type its name, partition boundaries (type-local) and whether it has feature rows; per
 * relation its name, source and destination types and CSR entries per destination partition; the
 * seeds' type. A few numbers per partition, sent to every task of a typed feature layout ({@link
 * TypedSeedGroupOrder}). Partitions are numbered globally, every type's in order, as in the
 * manifest's {@code partition_table}; vertices by global dense id, types in order from 0.
 *
 * @param typeStarts per type, the type-local first id of each partition, then the type's count
 * @param features per type, whether it has feature rows (a layout orders only those)
 * @param relSrc per relation, its source type
 * @param relDst per relation, its destination type
 * @param relPartitionEdges per relation, the CSR entries of each partition of its destination type
 * @param target the seeds' type
 * @param everySeed whether every vertex of {@code target} is a seed (it has no training vertex)
 */
public record TypedStagedGraph(
    String[] typeNames,
    long[][] typeStarts,
    boolean[] features,
    String[] relNames,
    int[] relSrc,
    int[] relDst,
    long[][] relPartitionEdges,
    int target,
    boolean everySeed)
    implements Serializable {

  /**
   * The shape of the typed store of manifest {@code m}, its seeds in its only labelled type.
   *
   * @throws io.fanout.store.InvalidInputException when the store has no or several labelled types
   */
  public static TypedStagedGraph of(io.fanout.store.StoreManifest m, String source) {
    int n = m.types.size();
    String[] names = new String[n];
    long[][] starts = new long[n][];
    boolean[] features = new boolean[n];
    java.util.List<String> labelled = new java.util.ArrayList<>();
    int target = -1;
    for (int t = 0; t < n; t++) {
      io.fanout.store.StoreManifest.TypeEntry te = m.types.get(t);
      names[t] = te.name;
      starts[t] = new long[te.partitions + 1];
      for (int p = 0; p < te.partitions; p++) {
        starts[t][p + 1] = starts[t][p] + m.partitionTable.get(te.firstPartition + p).numVertices;
      }
      features[t] = te.featureDim > 0;
      if (te.classes > 0) {
        labelled.add(te.name);
        target = t;
      }
    }
    if (labelled.size() != 1) {
      throw new io.fanout.store.InvalidInputException(
          source
              + ": a typed feature layout orders rows by first use from the training seeds of the"
              + " one labelled type; the store has "
              + (labelled.isEmpty() ? "none" : labelled.size() + ": " + labelled));
    }
    int rels = m.relations.size();
    String[] relNames = new String[rels];
    int[] src = new int[rels];
    int[] dst = new int[rels];
    long[][] edges = new long[rels][];
    java.util.List<String> typeList = java.util.Arrays.asList(names);
    for (int r = 0; r < rels; r++) {
      io.fanout.store.StoreManifest.RelationEntry re = m.relations.get(r);
      relNames[r] = re.name;
      src[r] = typeList.indexOf(re.srcType);
      dst[r] = typeList.indexOf(re.dstType);
      edges[r] = re.partitionEdges.clone();
    }
    Long train = m.types.get(target).splitCounts.get("train");
    boolean everySeed = train == null || train == 0;
    return new TypedStagedGraph(
        names, starts, features, relNames, src, dst, edges, target, everySeed);
  }

  public int numTypes() {
    return typeNames.length;
  }

  /** The number of partitions of every type together. */
  public int partitions() {
    int n = 0;
    for (long[] s : typeStarts) {
      n += s.length - 1;
    }
    return n;
  }

  /** The global index of type {@code type}'s first partition. */
  public int firstPartition(int type) {
    int n = 0;
    for (int t = 0; t < type; t++) {
      n += typeStarts[t].length - 1;
    }
    return n;
  }

  /** The type of global partition {@code g}. */
  public int typeOf(int g) {
    int t = 0;
    while (g >= typeStarts[t].length - 1) {
      g -= typeStarts[t].length - 1;
      t++;
    }
    return t;
  }

  /** The global dense id of type {@code type}'s first vertex. */
  public long firstVertex(int type) {
    long n = 0;
    for (int t = 0; t < type; t++) {
      n += typeStarts[t][typeStarts[t].length - 1];
    }
    return n;
  }

  /** The global partitions' first global ids, then the number of vertices. */
  public long[] globalStarts() {
    long[] out = new long[partitions() + 1];
    int g = 0;
    long base = 0;
    for (long[] s : typeStarts) {
      for (int p = 0; p + 1 < s.length; p++) {
        out[++g] = base + s[p + 1];
      }
      base += s[s.length - 1];
    }
    return out;
  }

  /** The global partition of global id {@code id}, given {@link #globalStarts()}. */
  public static int partitionOf(long[] globalStarts, long id) {
    int i = Arrays.binarySearch(globalStarts, id);
    if (i >= 0) {
      while (i + 1 < globalStarts.length - 1 && globalStarts[i + 1] == id) {
        i++; // an empty partition shares its start with the next one
      }
      return i;
    }
    return -i - 2;
  }

  /** Partition {@code p} (type-local) of relation {@code r}'s CSR in {@code dataDir}, mapped. */
  CsrGraph csr(Path dataDir, int r, int p) {
    long[] starts = typeStarts[relDst[r]];
    long n = starts[p + 1] - starts[p];
    long edges = relPartitionEdges[r][p];
    StoreFileMaps files = files(dataDir);
    ChunkedMapping m =
        files.csr(
            StoreLayout.relationDir(relNames[r]) + "/" + StoreLayout.csrFile(p),
            p,
            starts[p],
            n,
            edges);
    return new MappedCsrGraph(new ChunkedMapping[] {m}, new long[] {0, n}, new long[] {0, edges});
  }

  /** The splits of partition {@code p} (type-local) of type {@code t}, rows from 0. */
  VertexTable nodes(Path dataDir, int t, int p) {
    long[] starts = typeStarts[t];
    long n = starts[p + 1] - starts[p];
    ChunkedMapping m =
        files(dataDir)
            .nodes(
                StoreLayout.typeDir(typeNames[t]) + "/" + StoreLayout.nodesFile(p),
                p,
                starts[p],
                n);
    return new MappedVertexTable(new ChunkedMapping[] {m}, new long[] {0, n});
  }

  private static StoreFileMaps files(Path dataDir) {
    io.fanout.store.StoreManifest none = new io.fanout.store.StoreManifest();
    return new StoreFileMaps(dataDir, none, ChunkedMapping.DEFAULT_CHUNK_SHIFT);
  }
}
