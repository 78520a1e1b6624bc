package io.fanout.shard;

import io.fanout.store.FileTrees;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The commit protocol of a shard directory: a run writes its parts under {@code
 * DIR/_staging-<run-id>/}, then {@link #publish} moves them into place and writes {@code
 * manifest.json} last through a temporary file and an atomic rename. A directory without a manifest
 * is incomplete and never read.
 */
public final class ShardCommit {
  private ShardCommit() {}

  public static final String STAGING_PREFIX = "_staging-";

  /** What a run does given what is already at the output path. */
  public enum Plan {
    /** Nothing complete there: write. */
    WRITE,
    /** Complete shards of the same request are there: nothing to do. */
    SKIP,
    /** Complete shards of another request are there and overwrite was asked: replace them. */
    REPLACE
  }

  /**
   * Decides between writing, skipping and replacing.
   *
   * @throws InvalidInputException when the output holds other shards and {@code overwrite} is
   *     false, or holds files that are not a shard directory's
   */
  public static Plan plan(Path out, String requestFingerprint, boolean overwrite) {
    if (!Files.exists(out)) {
      return Plan.WRITE;
    }
    if (!Files.isDirectory(out)) {
      throw new InvalidInputException(out + ": output exists and is not a directory");
    }
    for (Path p : list(out)) {
      String n = p.getFileName().toString();
      if (!owned(n)) {
        throw new InvalidInputException(
            out
                + ": holds '"
                + n
                + "', which is not part of a shard directory; expected only "
                + ShardManifest.FILE
                + ", epoch-NNNN/ and "
                + STAGING_PREFIX
                + "*; choose an empty or new output directory");
      }
    }
    if (!Files.exists(out.resolve(ShardManifest.FILE))) {
      return Plan.WRITE;
    }
    ShardManifest old;
    try {
      old = ShardManifest.read(out);
    } catch (InvalidInputException e) {
      if (overwrite) {
        return Plan.REPLACE;
      }
      throw new InvalidInputException(
          e.getMessage() + "; pass --overwrite to replace what is there", e);
    }
    if (requestFingerprint.equals(old.requestFingerprint) && !overwrite && complete(out, old)) {
      return Plan.SKIP;
    }
    if (overwrite) {
      return Plan.REPLACE;
    }
    throw new InvalidInputException(
        out
            + ": holds shards of another request (store "
            + old.store
            + ", options "
            + old.options
            + ")"
            + (requestFingerprint.equals(old.requestFingerprint)
                ? " or with missing or changed files"
                : "")
            + "; pass --overwrite to replace them");
  }

  /** Whether every file the manifest lists is there with its size. */
  static boolean complete(Path out, ShardManifest m) {
    for (ShardManifest.Part p : m.files) {
      Path f = out.resolve(p.path);
      try {
        if (!Files.isRegularFile(f) || Files.size(f) != p.bytes) {
          return false;
        }
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  private static boolean owned(String name) {
    return name.equals(ShardManifest.FILE)
        || name.startsWith(STAGING_PREFIX)
        || name.matches("epoch-\\d{4,}")
        || name.equals(ShardManifest.FILE + ".tmp");
  }

  /** Creates a fresh staging directory under {@code out}. */
  public static Path newStaging(Path out) {
    Path staging = out.resolve(STAGING_PREFIX + UUID.randomUUID());
    try {
      Files.createDirectories(staging);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + staging, e);
    }
    return staging;
  }

  /**
   * Publishes the parts under {@code staging} and then the manifest. An existing manifest is
   * removed first, then the old epoch directories, so a crash midway leaves an incomplete
   * (manifest-less) directory, never a mix that looks complete.
   */
  public static void publish(Path out, Path staging, ShardManifest manifest) {
    try {
      Files.deleteIfExists(out.resolve(ShardManifest.FILE));
      for (Path p : list(out)) {
        String n = p.getFileName().toString();
        if (n.startsWith("epoch-") || n.equals(ShardManifest.FILE + ".tmp")) {
          FileTrees.deleteRecursively(p);
        }
      }
      // Leftovers of failed task attempts are not part of the output.
      java.util.Set<Path> listed = new java.util.HashSet<>();
      for (ShardManifest.Part part : manifest.files) {
        listed.add(staging.resolve(part.path).normalize());
      }
      List<Path> stray = new ArrayList<>();
      try (java.util.stream.Stream<Path> walk = Files.walk(staging)) {
        walk.filter(Files::isRegularFile)
            .filter(f -> !listed.contains(f.normalize()))
            .forEach(stray::add);
      }
      for (Path f : stray) {
        Files.delete(f);
      }
      for (Path p : list(staging)) {
        Files.move(p, out.resolve(p.getFileName().toString()), StandardCopyOption.ATOMIC_MOVE);
      }
      for (ShardManifest.Part part : manifest.files) {
        Path f = out.resolve(part.path);
        if (!Files.isRegularFile(f) || Files.size(f) != part.bytes) {
          throw new IllegalStateException("published part " + f + " is missing or changed");
        }
      }
      Path tmp = out.resolve(ShardManifest.FILE + ".tmp");
      manifest.write(tmp);
      Files.move(tmp, out.resolve(ShardManifest.FILE), StandardCopyOption.ATOMIC_MOVE);
      for (Path p : list(out)) {
        if (p.getFileName().toString().startsWith(STAGING_PREFIX)) {
          FileTrees.deleteRecursively(p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot publish shards to " + out, e);
    }
  }

  /** Removes a staging directory after a failed run. */
  public static void abort(Path staging) {
    try {
      FileTrees.deleteRecursively(staging);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + staging, e);
    }
  }

  private static List<Path> list(Path dir) {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        out.add(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
    out.sort(null);
    return out;
  }
}
