package io.fanout.graph;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.ManifestPaths;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreHeader;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.WeightFileWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Maps the part files of one store version after checking each against its header and the manifest
 * (magic, version, partition, counts, length): what {@link GraphStore} and {@link TypedGraphStore}
 * share. Paths are relative to the version folder the manifest names.
 */
final class StoreFileMaps {
  private final Path root;
  private final Path data;
  private final StoreManifest manifest;
  private final int chunkShift;

  StoreFileMaps(Path root, StoreManifest manifest, int chunkShift) {
    this.root = root;
    this.manifest = manifest;
    this.data = manifest.dataRoot(root);
    this.chunkShift = chunkShift;
  }

  Path dataRoot() {
    return data;
  }

  /** A {@code csr/} part file of {@code numVertices} rows and {@code numEdges} entries. */
  ChunkedMapping csr(String rel, int partition, long firstVertex, long numVertices, long numEdges) {
    ChunkedMapping m = map(rel, CsrFileWriter.fileLength(numVertices, numEdges));
    StoreHeader h = header(m, StoreLayout.CSR_MAGIC);
    expect(m, "partition", h.getInt(CsrFileWriter.PARTITION), partition);
    expect(m, "first_vertex", h.getLong(CsrFileWriter.FIRST_VERTEX), firstVertex);
    expect(m, "num_vertices", h.getLong(CsrFileWriter.NUM_VERTICES), numVertices);
    expect(m, "num_edges", h.getLong(CsrFileWriter.NUM_EDGES), numEdges);
    expect(m, "indptr[0]", m.getLong(StoreLayout.HEADER_BYTES), 0);
    expect(
        m, "indptr[num_vertices]", m.getLong(StoreLayout.HEADER_BYTES + 8 * numVertices), numEdges);
    return m;
  }

  /** A {@code weights/} part file of a partition of {@code numEdges} CSR entries. */
  ChunkedMapping weights(
      String rel, int partition, long firstVertex, long numVertices, long numEdges) {
    ChunkedMapping m = map(rel, WeightFileWriter.fileLength(numEdges));
    StoreHeader h = header(m, StoreLayout.WEIGHTS_MAGIC);
    expect(m, "partition", h.getInt(WeightFileWriter.PARTITION), partition);
    expect(m, "first_vertex", h.getLong(WeightFileWriter.FIRST_VERTEX), firstVertex);
    expect(m, "num_vertices", h.getLong(WeightFileWriter.NUM_VERTICES), numVertices);
    expect(m, "num_edges", h.getLong(WeightFileWriter.NUM_EDGES), numEdges);
    return m;
  }

  /**
   * A file of the {@code csr/} format whose entry count is read from its header (label sets, whose
   * count the manifest does not list); the length check against the manifest's file size still
   * holds.
   */
  ChunkedMapping csrOfAnyLength(String rel, int partition, long firstVertex, long numVertices) {
    Path p = resolve(rel);
    long edges;
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p)) {
      java.nio.ByteBuffer head =
          java.nio.ByteBuffer.allocate(StoreLayout.HEADER_BYTES)
              .order(java.nio.ByteOrder.LITTLE_ENDIAN);
      while (head.hasRemaining() && ch.read(head) >= 0) {}
      edges =
          head.position() < StoreLayout.HEADER_BYTES ? 0 : head.getLong(CsrFileWriter.NUM_EDGES);
    } catch (NoSuchFileException e) {
      throw missing(p, "a part file of the store");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + p, e);
    }
    if (edges < 0) {
      edges = 0; // the length check below reports the damage
    }
    return csr(rel, partition, firstVertex, numVertices, edges);
  }

  /** A {@code nodes/} part file. */
  ChunkedMapping nodes(String rel, int partition, long firstVertex, long numVertices) {
    ChunkedMapping m = map(rel, NodesFileWriter.fileLength(numVertices));
    StoreHeader h = header(m, StoreLayout.NODES_MAGIC);
    expect(m, "partition", h.getInt(NodesFileWriter.PARTITION), partition);
    expect(m, "first_vertex", h.getLong(NodesFileWriter.FIRST_VERTEX), firstVertex);
    expect(m, "num_vertices", h.getLong(NodesFileWriter.NUM_VERTICES), numVertices);
    return m;
  }

  /** A {@code features/} part file of rows as {@code params} encodes them. */
  ChunkedMapping features(String rel, long firstVertex, long numVertices, FeatureParams params) {
    ChunkedMapping m = map(rel, FeatureFileWriter.fileLength(numVertices, params.rowBytes()));
    StoreHeader h = header(m, StoreLayout.FEATURES_MAGIC);
    expect(m, "encoding", h.getInt(FeatureFileWriter.ENCODING), params.encoding);
    expect(m, "first_vertex", h.getLong(FeatureFileWriter.FIRST_VERTEX), firstVertex);
    expect(m, "num_vertices", h.getLong(FeatureFileWriter.NUM_VERTICES), numVertices);
    expect(m, "dim", h.getInt(FeatureFileWriter.DIM), params.dim);
    expect(m, "row_bytes", h.getInt(FeatureFileWriter.ROW_BYTES), params.rowBytes());
    return m;
  }

  /**
   * The encoding {@code name} of rows of {@code dim} columns and, for a quantized one, its
   * parameters file {@code paramsRel}, checked against the manifest's CRC32C on every open (it is
   * small and every row depends on it).
   */
  FeatureParams featureParams(String name, int dim, String paramsRel) {
    int encoding = StoreLayout.encodingCode(name);
    if (encoding < 0) {
      throw new InvalidInputException(
          root.resolve(StoreLayout.MANIFEST)
              + ": unknown feature_encoding '"
              + name
              + "', expected one of "
              + String.join(", ", StoreLayout.encodingNames())
              + " (written by a newer Fanout?)");
    }
    if (!FeatureParams.hasFile(encoding)) {
      return FeatureParams.plain(encoding, dim);
    }
    StoreManifest.FileEntry listed = manifest.file(paramsRel);
    Path p = resolve(paramsRel);
    if (listed == null) {
      throw new InvalidInputException(
          root.resolve(StoreLayout.MANIFEST)
              + ": feature_encoding "
              + name
              + " but "
              + paramsRel
              + " is not listed in files; rerun prepare or quantize");
    }
    return FeatureParams.read(p, listed.crc32c, encoding, dim);
  }

  /** Maps {@code rel} after checking its length against the counts and the manifest. */
  ChunkedMapping map(String rel, long expectedLength) {
    Path p = resolve(rel);
    long size;
    try {
      size = Files.size(p);
    } catch (NoSuchFileException ex) {
      throw missing(p, "a part file of the store");
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot stat " + p, ex);
    }
    ChunkedMapping m = new ChunkedMapping(p, chunkShift);
    if (size >= StoreLayout.HEADER_BYTES) {
      header(m, magicOf(rel)); // a bad magic says more than a bad length
    }
    if (size != expectedLength) {
      throw new InvalidInputException(
          p
              + ": "
              + size
              + " bytes, expected "
              + expectedLength
              + " from the header and manifest counts ("
              + (size < expectedLength ? "truncated" : "trailing bytes")
              + ")");
    }
    StoreManifest.FileEntry listed = manifest.file(rel);
    if (listed != null && listed.bytes != size) {
      throw new InvalidInputException(
          p + ": " + size + " bytes, the manifest says " + listed.bytes + " (replaced?)");
    }
    return m;
  }

  private Path resolve(String rel) {
    return ManifestPaths.resolve(data, root.resolve(StoreLayout.MANIFEST).toString(), "store", rel);
  }

  /**
   * A missing file: says so plainly, or, when the manifest now names another version, that the
   * store was replaced while this reader opened it.
   */
  private InvalidInputException missing(Path p, String what) {
    String now;
    try {
      now = StoreManifest.read(root).dataDir;
    } catch (RuntimeException e) {
      now = null;
    }
    if (now != null && !now.equals(manifest.dataDir)) {
      return new InvalidInputException(
          p
              + ": missing: the store at "
              + root
              + " was replaced (version "
              + manifest.dataDir
              + " -> "
              + now
              + ") by another prepare run while this one read it; run again");
    }
    return new InvalidInputException(p + ": missing (" + what + "); rerun prepare");
  }

  private static byte[] magicOf(String rel) {
    if (rel.endsWith(".csr")) {
      return StoreLayout.CSR_MAGIC;
    }
    if (rel.endsWith(".feat")) {
      return StoreLayout.FEATURES_MAGIC;
    }
    if (rel.endsWith(".wgt")) {
      return StoreLayout.WEIGHTS_MAGIC;
    }
    if (rel.endsWith(".perm")) {
      return StoreLayout.ORDER_MAGIC;
    }
    return StoreLayout.NODES_MAGIC;
  }

  static StoreHeader header(ChunkedMapping m, byte[] magic) {
    return StoreHeader.parse(m.file(), m.head(StoreLayout.HEADER_BYTES), magic, m.length());
  }

  static void expect(ChunkedMapping m, String field, long got, long expected) {
    if (got != expected) {
      throw new InvalidInputException(
          m.file()
              + ": header field "
              + field
              + " is "
              + got
              + ", expected "
              + expected
              + " from "
              + StoreLayout.MANIFEST);
    }
  }
}
