package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/** A graph store as an {@link OutputCommit} output: its layout, request identity and file list. */
public final class StoreOutput implements OutputCommit.Layout<StoreManifest> {
  /** The commit protocol of graph stores. */
  public static final OutputCommit<StoreManifest> COMMIT =
      new OutputCommit<>(StoreLayout.MANIFEST, new StoreOutput());

  private static final Set<String> ENTRIES =
      Set.of(
          StoreLayout.IDMAP_DIR,
          StoreLayout.CSR_DIR,
          StoreLayout.FEATURES_DIR,
          StoreLayout.NODES_DIR);

  private StoreOutput() {}

  /**
   * The request identity of a store prepared from inputs {@code fingerprint} with {@code options}.
   */
  public static String request(String fingerprint, Map<String, String> options) {
    StringBuilder sb = new StringBuilder(String.valueOf(fingerprint));
    for (Map.Entry<String, String> e : new TreeMap<>(options).entrySet()) {
      sb.append('\n').append(e.getKey()).append('=').append(e.getValue());
    }
    return sb.toString();
  }

  /** A store's request for messages. */
  public static String describe(String fingerprint, Map<String, String> options) {
    return "inputs " + fingerprint + " with options " + new TreeMap<>(options);
  }

  /**
   * Lists every regular file under {@code staging} (sorted by relative path, '/'-separated) with
   * its size and CRC32C, for the manifest's {@code files}. Names starting with '.' or '_' (Hadoop's
   * side files, attempt leftovers) are not part of the store.
   */
  public static List<StoreManifest.FileEntry> files(Path staging) {
    List<StoreManifest.FileEntry> out = new ArrayList<>();
    List<Path> found = new ArrayList<>();
    try (Stream<Path> s = Files.walk(staging)) {
      s.filter(Files::isRegularFile).forEach(found::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + staging, e);
    }
    for (Path f : found) {
      String rel = staging.relativize(f).toString().replace('\\', '/');
      String name = f.getFileName().toString();
      if (name.startsWith(".") || name.startsWith("_")) {
        continue;
      }
      try {
        out.add(new StoreManifest.FileEntry(rel, Files.size(f), Checksums.crc32c(f)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot stat " + f, e);
      }
    }
    out.sort((a, b) -> a.path.compareTo(b.path));
    return out;
  }

  @Override
  public String kind() {
    return "graph store";
  }

  @Override
  public boolean owns(String name) {
    return ENTRIES.contains(name);
  }

  @Override
  public StoreManifest read(Path dir) {
    return StoreManifest.read(dir);
  }

  @Override
  public void write(StoreManifest manifest, Path file) {
    manifest.write(file);
  }

  @Override
  public String request(StoreManifest m) {
    return request(m.inputFingerprint, m.options);
  }

  @Override
  public String describe(StoreManifest m) {
    return describe(m.inputFingerprint, m.options);
  }

  @Override
  public String dataDir(StoreManifest m) {
    return m.dataDir;
  }

  @Override
  public void setDataDir(StoreManifest m, String dataDir) {
    m.dataDir = dataDir;
  }

  @Override
  public List<OutputCommit.FileSize> files(StoreManifest m) {
    List<OutputCommit.FileSize> out = new ArrayList<>(m.files.size());
    for (StoreManifest.FileEntry f : m.files) {
      out.add(new OutputCommit.FileSize(f.path, f.bytes));
    }
    return out;
  }
}
