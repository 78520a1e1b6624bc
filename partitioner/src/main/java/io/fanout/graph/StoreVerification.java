package io.fanout.graph;

import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import io.fanout.store.ManifestPaths;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Checks a store's files against the size and CRC32C its manifest lists ({@link
 * GraphStore#verifyChecksums}, {@link GraphStore#verifyChecksumsOnce}), reading them in parallel,
 * and keeps the process-wide memo of the files found intact. The memo is bounded: the least
 * recently used keys are dropped, which only costs a re-check.
 */
final class StoreVerification {
  private StoreVerification() {}

  private static final int MAX_KEYS = 16_384;

  private static final Map<String, Boolean> INTACT =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) {
          return size() > MAX_KEYS;
        }
      };

  /**
   * Checks every file {@code manifest} lists in the version folder it names under {@code root};
   * with {@code once}, skips and then remembers the files found intact (see {@link
   * GraphStore#verifyChecksumsOnce}).
   *
   * @return the number of files read
   */
  static int check(Path root, StoreManifest manifest, boolean once) {
    String source = root.resolve(StoreLayout.MANIFEST).toString();
    Path data = manifest.dataRoot(root);
    String prefix = once ? canonical(root) + "|" + Checksums.sha256(manifest.toJson()) + "|" : null;
    List<StoreManifest.FileEntry> entries = new ArrayList<>();
    List<Path> paths = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (StoreManifest.FileEntry f : manifest.files) {
      Path p = ManifestPaths.resolve(data, source, "store", f.path);
      BasicFileAttributes a;
      try {
        a = Files.readAttributes(p, BasicFileAttributes.class);
      } catch (NoSuchFileException e) {
        throw damaged(p + ": missing, but listed in " + source);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot stat " + p, e);
      }
      if (a.size() != f.bytes) {
        throw damaged(
            p
                + ": "
                + a.size()
                + " bytes, expected "
                + f.bytes
                + " from "
                + source
                + " (truncated or replaced)");
      }
      String key =
          once
              ? prefix
                  + canonical(p)
                  + "|"
                  + a.size()
                  + "|"
                  + a.lastModifiedTime().to(TimeUnit.NANOSECONDS)
                  + "|"
                  + a.fileKey()
              : null;
      if (key == null || !known(key)) {
        entries.add(f);
        paths.add(p);
        keys.add(key);
      }
    }
    String[] crcs = Checksums.crc32c(paths);
    for (int i = 0; i < crcs.length; i++) {
      if (!crcs[i].equals(entries.get(i).crc32c)) {
        throw damaged(
            paths.get(i)
                + ": CRC32C "
                + crcs[i]
                + ", expected "
                + entries.get(i).crc32c
                + " from "
                + source);
      }
    }
    if (once) {
      remember(keys);
    }
    return paths.size();
  }

  private static InvalidInputException damaged(String what) {
    return new InvalidInputException(
        what + "; the graph store is damaged: rerun prepare with --overwrite");
  }

  private static String canonical(Path p) {
    try {
      return p.toRealPath().toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve " + p, e);
    }
  }

  private static synchronized boolean known(String key) {
    return INTACT.get(key) != null;
  }

  private static synchronized void remember(List<String> keys) {
    for (String k : keys) {
      INTACT.put(k, Boolean.TRUE);
    }
  }
}
