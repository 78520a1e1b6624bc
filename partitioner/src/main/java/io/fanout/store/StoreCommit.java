package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The commit protocol of a graph store ({@code docs/formats.md}): a run writes under {@code
 * STORE/_staging-<run-id>/}, then {@link #publish} moves the files into place and writes {@code
 * manifest.json} last through a temporary file and an atomic rename. A store without a manifest is
 * incomplete and never read.
 */
public final class StoreCommit {
  private StoreCommit() {}

  /** What a run should do given what is already at the output path. */
  public enum Plan {
    /** No complete store there: write one. */
    WRITE,
    /** A complete store from the same inputs and options is there: nothing to do. */
    SKIP,
    /** A complete store from other inputs or options is there and overwrite was asked: replace. */
    REPLACE
  }

  /** Top-level names a store owns; anything else in an output directory is not ours to delete. */
  private static final Set<String> OWNED =
      Set.of(
          StoreLayout.MANIFEST,
          StoreLayout.IDMAP_DIR,
          StoreLayout.CSR_DIR,
          StoreLayout.FEATURES_DIR,
          StoreLayout.NODES_DIR);

  /**
   * Decides between writing, skipping and replacing.
   *
   * @throws InvalidInputException when a complete store from other inputs or options is there and
   *     {@code overwrite} is false, or when the directory holds files that are not a store's
   */
  public static Plan plan(
      Path store, String fingerprint, Map<String, String> options, boolean overwrite) {
    if (!Files.exists(store)) {
      return Plan.WRITE;
    }
    if (!Files.isDirectory(store)) {
      throw new InvalidInputException(store + ": output exists and is not a directory");
    }
    checkOnlyOwned(store);
    if (!Files.exists(store.resolve(StoreLayout.MANIFEST))) {
      return Plan.WRITE;
    }
    StoreManifest old = StoreManifest.read(store);
    boolean same =
        fingerprint.equals(old.inputFingerprint)
            && new java.util.HashMap<>(options).equals(new java.util.HashMap<>(old.options));
    if (same && !overwrite) {
      return Plan.SKIP;
    }
    if (overwrite) {
      return Plan.REPLACE;
    }
    throw new InvalidInputException(
        store
            + ": holds a store prepared from "
            + (fingerprint.equals(old.inputFingerprint) ? "the same inputs" : "other inputs")
            + " with options "
            + old.options
            + "; this run has options "
            + options
            + ". Pass --overwrite to replace it, or choose another --output");
  }

  /**
   * Creates a fresh {@code STORE/_staging-<runId>/} after removing leftover staging directories of
   * earlier runs that died.
   */
  public static Path beginStaging(Path store, String runId) {
    try {
      Files.createDirectories(store);
      removeLeftoverStaging(store);
      Path staging = store.resolve(StoreLayout.STAGING_PREFIX + runId);
      Files.createDirectories(staging);
      return staging;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create staging directory under " + store, e);
    }
  }

  /** Removes every {@code _staging-*} directory under {@code store}. */
  public static void removeLeftoverStaging(Path store) {
    if (!Files.isDirectory(store)) {
      return;
    }
    try (DirectoryStream<Path> ds =
        Files.newDirectoryStream(store, StoreLayout.STAGING_PREFIX + "*")) {
      for (Path p : ds) {
        FileTrees.deleteRecursively(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + store, e);
    }
  }

  /**
   * Lists every regular file under {@code staging} (sorted by relative path, '/'-separated) with
   * its size and CRC32C, for the manifest's {@code files}.
   */
  public static List<StoreManifest.FileEntry> describe(Path staging) {
    List<StoreManifest.FileEntry> out = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.walk(staging)) {
      s.filter(Files::isRegularFile).forEach(files::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + staging, e);
    }
    for (Path f : files) {
      String rel = staging.relativize(f).toString().replace('\\', '/');
      String name = f.getFileName().toString();
      if (name.startsWith(".") || name.startsWith("_")) {
        continue; // Hadoop's _SUCCESS and .crc side files are not part of the store
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

  /**
   * Publishes {@code staging} as the store at {@code store}: with a complete store already there,
   * fails unless {@code overwrite}, which removes the old manifest first, then the old files. Moves
   * the staged entries into place, writes the manifest through a temporary file and an atomic
   * rename, and removes the staging directory.
   */
  public static void publish(Path store, Path staging, StoreManifest manifest, boolean overwrite) {
    Path manifestFile = store.resolve(StoreLayout.MANIFEST);
    try {
      if (Files.exists(manifestFile)) {
        if (!overwrite) {
          throw new InvalidInputException(
              store + ": a complete store is already there; pass --overwrite to replace it");
        }
        Files.delete(manifestFile);
      }
      for (String name : OWNED) {
        FileTrees.deleteRecursively(store.resolve(name));
      }
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(staging)) {
        for (Path p : ds) {
          Files.move(p, store.resolve(p.getFileName().toString()), StandardCopyOption.ATOMIC_MOVE);
        }
      }
      Path tmp = staging.resolve(StoreLayout.MANIFEST + ".tmp");
      manifest.write(tmp);
      Files.move(tmp, manifestFile, StandardCopyOption.ATOMIC_MOVE);
      FileTrees.deleteRecursively(staging);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot publish store " + store, e);
    }
  }

  /** Removes a staging directory after a failed run; never throws. */
  public static void abort(Path staging) {
    try {
      FileTrees.deleteRecursively(staging);
    } catch (IOException | RuntimeException e) {
      // the next run removes leftovers
    }
  }

  private static void checkOnlyOwned(Path store) {
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(store)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        if (!OWNED.contains(name) && !name.startsWith(StoreLayout.STAGING_PREFIX)) {
          throw new InvalidInputException(
              store
                  + ": output directory holds '"
                  + name
                  + "', which is not part of a graph store; expected an empty or new directory"
                  + " or an existing store");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + store, e);
    }
  }
}
