package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The commit protocol of every output directory Fanout publishes (graph stores, shard directories;
 * {@code docs/formats.md}). A run writes under {@code OUT/_staging-<run-id>/}; {@link #publish}
 * removes the old manifest, then the old output, moves the staged files into place and writes the
 * manifest last, through a temporary file and an atomic rename. A directory without a manifest is
 * incomplete and never read. {@link #plan} decides between writing, skipping an identical request
 * and replacing another one, and never touches a directory holding files that are not the output's.
 *
 * @param <M> the manifest type
 */
public final class OutputCommit<M> {
  /** What a run should do given what is already at the output path. */
  public enum Plan {
    /** No complete output there: write one. */
    WRITE,
    /** A complete output of the same request is there: nothing to do. */
    SKIP,
    /** A complete output of another request is there and overwrite was asked: replace it. */
    REPLACE
  }

  /** What differs between kinds of output. */
  public interface Layout<M> {
    /** The output's name in messages, e.g. "graph store". */
    String kind();

    /** The top-level entries of a published output, for messages, e.g. "csr/, nodes/". */
    String entries();

    /**
     * Whether a top-level entry other than the manifest and staging directories is the output's.
     */
    boolean owns(String name);

    /** Reads the manifest of the complete output in {@code dir}. */
    M read(Path dir);

    /** Writes {@code manifest} to {@code file} (not atomically). */
    void write(M manifest, Path file);

    /** The identity of the request that produced {@code manifest}: equal requests skip. */
    String request(M manifest);

    /** The request that produced {@code manifest}, for messages. */
    String describe(M manifest);

    /** Every published file, '/'-separated relative to the output, with its size in bytes. */
    List<FileSize> files(M manifest);
  }

  /** A published file and its size. */
  public record FileSize(String path, long bytes) {}

  /** Prefix of the staging directories under an output directory. */
  public static final String STAGING_PREFIX = "_staging-";

  private final Layout<M> layout;
  private final String manifestFile;

  /**
   * @param manifestFile the manifest's file name in the output directory
   */
  public OutputCommit(String manifestFile, Layout<M> layout) {
    this.manifestFile = manifestFile;
    this.layout = layout;
  }

  /**
   * Decides between writing, skipping and replacing.
   *
   * @param request the identity of this run's request ({@link Layout#request} of its manifest)
   * @param description this run's request, for messages
   * @throws InvalidInputException when the output is a complete one of another request (or has lost
   *     files) and {@code overwrite} is false, or the directory holds files that are not the
   *     output's
   */
  public Plan plan(Path out, String request, String description, boolean overwrite) {
    if (!Files.exists(out)) {
      return Plan.WRITE;
    }
    if (!Files.isDirectory(out)) {
      throw new InvalidInputException(out + ": output exists and is not a directory");
    }
    for (Path p : list(out)) {
      String name = p.getFileName().toString();
      if (!owned(name)) {
        throw new InvalidInputException(
            out
                + ": holds '"
                + name
                + "', which is not part of a "
                + layout.kind()
                + "; expected only "
                + manifestFile
                + ", "
                + layout.entries()
                + " and "
                + STAGING_PREFIX
                + "*; choose an empty or new output directory or an existing "
                + layout.kind());
      }
    }
    if (!Files.exists(out.resolve(manifestFile))) {
      return Plan.WRITE;
    }
    M old;
    try {
      old = layout.read(out);
    } catch (InvalidInputException e) {
      if (overwrite) {
        return Plan.REPLACE;
      }
      throw new InvalidInputException(
          e.getMessage() + "; pass --overwrite to replace what is there", e);
    }
    boolean same = request.equals(layout.request(old));
    if (same && !overwrite && complete(out, old)) {
      return Plan.SKIP;
    }
    if (overwrite) {
      return Plan.REPLACE;
    }
    throw new InvalidInputException(
        out
            + ": holds a "
            + layout.kind()
            + " of "
            + (same ? "this request with missing or changed files" : "another request")
            + " ("
            + layout.describe(old)
            + "); this run: "
            + description
            + ". Pass --overwrite to replace it, or choose another --output");
  }

  /** Whether every file the manifest lists is there with its size. */
  boolean complete(Path out, M manifest) {
    for (FileSize f : layout.files(manifest)) {
      Path p = out.resolve(f.path());
      try {
        if (!Files.isRegularFile(p) || Files.size(p) != f.bytes()) {
          return false;
        }
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  /**
   * Creates {@code out} if needed and a fresh {@code out/_staging-<runId>/}, after removing the
   * staging directories of earlier runs that died.
   */
  public Path begin(Path out, String runId) {
    try {
      Files.createDirectories(out);
      removeStaging(out);
      Path staging = out.resolve(STAGING_PREFIX + runId);
      Files.createDirectories(staging);
      return staging;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a staging directory under " + out, e);
    }
  }

  /**
   * Publishes {@code staging} as the output at {@code out}: with a complete output already there,
   * fails unless {@code overwrite}, which removes the old manifest first, then the old entries, so
   * a crash midway leaves an incomplete (manifest-less) directory, never a mix that looks complete.
   * Files under {@code staging} that the manifest does not list (leftovers of failed task attempts)
   * are dropped; the rest move into place, are checked against the manifest's sizes, and the
   * manifest is written last. Removes every staging directory.
   */
  public void publish(Path out, Path staging, M manifest, boolean overwrite) {
    Path manifestPath = out.resolve(manifestFile);
    try {
      if (Files.exists(manifestPath)) {
        if (!overwrite) {
          throw new InvalidInputException(
              out
                  + ": a complete "
                  + layout.kind()
                  + " is already there; pass --overwrite to replace it");
        }
        Files.delete(manifestPath);
      }
      for (Path p : list(out)) {
        String name = p.getFileName().toString();
        if (!name.startsWith(STAGING_PREFIX) && owned(name)) {
          FileTrees.deleteRecursively(p);
        }
      }
      dropUnlisted(staging, manifest);
      for (Path p : list(staging)) {
        Files.move(p, out.resolve(p.getFileName().toString()), StandardCopyOption.ATOMIC_MOVE);
      }
      for (FileSize f : layout.files(manifest)) {
        Path p = out.resolve(f.path());
        if (!Files.isRegularFile(p) || Files.size(p) != f.bytes()) {
          throw new IllegalStateException("published file " + p + " is missing or changed");
        }
      }
      Path tmp = staging.resolve(manifestFile + ".tmp");
      layout.write(manifest, tmp);
      Files.move(tmp, manifestPath, StandardCopyOption.ATOMIC_MOVE);
      removeStaging(out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot publish " + layout.kind() + " " + out, e);
    }
  }

  /** Removes a staging directory after a failed run; never throws (the next run cleans up). */
  public void abort(Path staging) {
    try {
      FileTrees.deleteRecursively(staging);
    } catch (IOException | RuntimeException e) {
      // the next run removes leftovers
    }
  }

  private boolean owned(String name) {
    return name.equals(manifestFile)
        || name.equals(manifestFile + ".tmp")
        || name.startsWith(STAGING_PREFIX)
        || layout.owns(name);
  }

  private void dropUnlisted(Path staging, M manifest) throws IOException {
    Set<Path> listed = new HashSet<>();
    for (FileSize f : layout.files(manifest)) {
      listed.add(staging.resolve(f.path()).normalize());
    }
    List<Path> stray = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(staging)) {
      walk.filter(Files::isRegularFile)
          .filter(f -> !listed.contains(f.normalize()))
          .forEach(stray::add);
    }
    for (Path f : stray) {
      Files.delete(f);
    }
  }

  private static void removeStaging(Path out) throws IOException {
    for (Path p : list(out)) {
      if (p.getFileName().toString().startsWith(STAGING_PREFIX)) {
        FileTrees.deleteRecursively(p);
      }
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
