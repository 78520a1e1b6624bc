package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The commit protocol of every output directory Fanout publishes (graph stores, shard directories;
 * {@code docs/reliability.md}). Each run writes a new <em>version</em>, a folder {@code
 * OUT/v-NNNN/} of its own, and publishes it by renaming its manifest onto {@code
 * OUT/manifest.json}: one atomic rename names the current version (the manifest's {@code
 * data_dir}). Readers read the manifest once and then only that version's files, so a replacement
 * is atomic for a crash at any point and never shows a reader a mix of two versions. Old versions
 * are removed after the new one is published; whatever a crash leaves (a claimed version, a
 * temporary manifest, an old version) is removed by the next run.
 *
 * <p>Concurrent runs are safe: a run claims its version number by creating {@code
 * OUT/_writing-v-NNNN.lock} (create-new) and holds an OS file lock on it until it ends, so cleanup
 * never removes a live run's version; publishing is serialized by {@code OUT/_publish.lock}, and
 * the check "is an output already there" is repeated under it, so two identical requests started
 * together publish once and the second is skipped.
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

  /**
   * The points of the protocol where a writer can die; {@code docs/reliability.md} says what each
   * leaves. Tests inject a crash at each ({@link #faults}).
   */
  public enum Step {
    /** The version folder and its lock file exist, nothing is written yet. */
    CLAIMED,
    /** The version's files are written and checked against the manifest. */
    STAGED,
    /** The new manifest is written to a temporary file next to the current one. */
    MANIFEST_WRITTEN,
    /** The new manifest has replaced the old one: the new version is the output. */
    PUBLISHED,
    /** One old version (or a dead run's leftover) has been removed. */
    OLD_REMOVED
  }

  /** What differs between kinds of output. */
  public interface Layout<M> {
    /** The output's name in messages, e.g. "graph store". */
    String kind();

    /**
     * Whether a top-level entry belongs to an unversioned output of an earlier release (e.g. {@code
     * csr}), removed once a versioned output replaces it.
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

    /** Every published file, '/'-separated relative to the version folder, with its size. */
    List<FileSize> files(M manifest);

    /** The manifest's version folder ("" for an output of an earlier release). */
    String dataDir(M manifest);

    /** Sets the manifest's version folder. */
    void setDataDir(M manifest, String dataDir);
  }

  /** A published file and its size. */
  public record FileSize(String path, long bytes) {}

  /** A run in progress: its version folder, where it writes, and the lock that says it is alive. */
  public static final class Run {
    private final Path out;
    private final String version;
    private final FileChannel lock;
    private final boolean createdOut;
    private final OutputLock writer;

    private Run(Path out, String version, FileChannel lock, boolean createdOut, OutputLock writer) {
      this.out = out;
      this.version = version;
      this.lock = lock;
      this.createdOut = createdOut;
      this.writer = writer;
    }

    /** The folder this run writes its files into ({@code OUT/v-NNNN}). */
    public Path dir() {
      return out.resolve(version);
    }

    /** Drops the lock as the OS does for a killed process (tests simulating a crash). */
    void die() {
      closeQuietly(lock);
      writer.close();
    }

    /** The version folder's name, {@code v-NNNN}. */
    public String version() {
      return version;
    }
  }

  /** Prefix of version folders. */
  public static final String VERSION_PREFIX = "v-";

  /** Prefix of the lock file of a version being written. */
  static final String WRITING_PREFIX = "_writing-";

  static final String PUBLISH_LOCK = "_publish.lock";

  /** Prefix of the staging folders of earlier releases, removed as leftovers. */
  static final String LEGACY_STAGING_PREFIX = "_staging-";

  /** Test hook: called at every {@link Step}; a test throws from it to simulate a crash. */
  static volatile Consumer<Step> faults = s -> {};

  private static final ConcurrentHashMap<Path, Object> PUBLISHING = new ConcurrentHashMap<>();

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
   * The identity of an output: SHA-256 of {@code manifest} as {@code json} writes it, without its
   * {@code data_dir}, so the same output written again into another version keeps it.
   */
  public static String fingerprint(
      com.fasterxml.jackson.databind.ObjectMapper json, Object manifest) {
    com.fasterxml.jackson.databind.node.ObjectNode tree = json.valueToTree(manifest);
    tree.remove("data_dir");
    try {
      return Checksums.sha256(json.writeValueAsString(tree));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Whether {@code out} holds anything a writing run leaves (version folders, its locks, a
   * temporary manifest): a folder without a manifest that holds none is no output at all.
   */
  public static boolean holdsRunFiles(Path out) {
    try (java.util.stream.Stream<Path> s = Files.list(out)) {
      return s.map(p -> p.getFileName().toString())
          .anyMatch(
              n ->
                  isVersion(n)
                      || n.startsWith(WRITING_PREFIX)
                      || n.equals(PUBLISH_LOCK)
                      || n.startsWith(LEGACY_STAGING_PREFIX)
                      || n.contains(".tmp"));
    } catch (IOException e) {
      return true;
    }
  }

  /** Whether {@code name} is a version folder's name, {@code v-} and at least four digits. */
  public static boolean isVersion(String name) {
    if (!name.startsWith(VERSION_PREFIX) || name.length() < VERSION_PREFIX.length() + 4) {
      return false;
    }
    for (int i = VERSION_PREFIX.length(); i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * Decides between writing, skipping and replacing. {@link #publish} decides again under the
   * publish lock, so a concurrent run cannot slip in between.
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
                + " and v-NNNN/ version folders"
                + "; choose an empty or new output directory or an existing "
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
    Path data = dataRoot(out, manifest);
    for (FileSize f : layout.files(manifest)) {
      Path p = data.resolve(f.path());
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

  private Path dataRoot(Path out, M manifest) {
    String d = layout.dataDir(manifest);
    return d == null || d.isEmpty() ? out : out.resolve(d);
  }

  /**
   * Creates {@code out} if needed, removes what dead runs left there, and claims a new version
   * folder for this run. The caller writes into {@link Run#dir()} and ends with {@link #publish} or
   * {@link #abort}. The run holds the output's {@link OutputLock} until then.
   *
   * @throws InvalidInputException when another writer holds the output's lock
   */
  public Run begin(Path out) {
    OutputLock writer = OutputLock.acquire(out, layout.kind());
    try {
      return begin(out, writer);
    } catch (RuntimeException | Error e) {
      writer.close();
      throw e;
    }
  }

  private Run begin(Path out, OutputLock writer) {
    boolean created = !Files.exists(out);
    try {
      Files.createDirectories(out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the output directory " + out, e);
    }
    removeLeftovers(out, null);
    int next = 1;
    for (Path p : list(out)) {
      String name = p.getFileName().toString();
      String v = name.startsWith(WRITING_PREFIX) ? lockedVersion(name) : name;
      if (isVersion(v)) {
        next = Math.max(next, Integer.parseInt(v.substring(VERSION_PREFIX.length())) + 1);
      }
    }
    while (true) {
      String version = String.format(java.util.Locale.ROOT, "v-%04d", next++);
      Path lockFile = out.resolve(WRITING_PREFIX + version + ".lock");
      FileChannel ch;
      try {
        ch = FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        continue; // claimed by a concurrent run
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + lockFile, e);
      }
      try {
        if (ch.tryLock() == null) {
          ch.close();
          continue;
        }
        Path dir = out.resolve(version);
        if (Files.exists(dir)) { // a dead run's folder whose lock file was already removed
          FileTrees.deleteRecursively(dir);
        }
        Files.createDirectory(dir);
        faults.accept(Step.CLAIMED);
        return new Run(out, version, ch, created, writer);
      } catch (IOException e) {
        closeQuietly(ch);
        throw new UncheckedIOException("cannot create a version folder under " + out, e);
      } catch (RuntimeException | Error e) {
        closeQuietly(ch);
        throw e;
      }
    }
  }

  /**
   * Publishes {@code run}'s version with {@code manifest}: files under the version folder that the
   * manifest does not list (leftovers of failed task attempts) are dropped, the rest are checked
   * against the manifest's sizes, and the manifest, with {@code data_dir} set to the version, is
   * renamed onto the output's manifest. Then older versions are removed.
   *
   * <p>Under the publish lock the output is examined again: when a complete output of the same
   * request appeared meanwhile (a concurrent identical run) and {@code overwrite} is false, this
   * run's version is dropped and {@code false} returned; one of another request fails unless {@code
   * overwrite}.
   *
   * @return true when published, false when skipped in favour of an identical output already there
   */
  public boolean publish(Run run, M manifest, boolean overwrite) {
    Path out = run.out;
    if (Cancellation.requested()) {
      abort(run);
      Cancellation.check("publishing " + layout.kind() + " " + out);
    }
    Path manifestPath = out.resolve(manifestFile);
    Object jvmLock =
        PUBLISHING.computeIfAbsent(out.toAbsolutePath().normalize(), k -> new Object());
    try {
      synchronized (jvmLock) {
        try (FileChannel pl =
                FileChannel.open(
                    out.resolve(PUBLISH_LOCK),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            var held = pl.lock()) {
          if (Files.exists(manifestPath) && !overwrite) {
            M old = readOrNull(out);
            if (old != null
                && layout.request(old).equals(layout.request(manifest))
                && complete(out, old)) {
              abort(run);
              return false;
            }
            throw new InvalidInputException(
                out
                    + ": a "
                    + layout.kind()
                    + (old == null ? "" : " of " + layout.describe(old))
                    + " was published by another run meanwhile; pass --overwrite to replace it");
          }
          Path data = run.dir();
          dropUnlisted(data, manifest);
          for (FileSize f : layout.files(manifest)) {
            Path p = data.resolve(f.path());
            if (!Files.isRegularFile(p) || Files.size(p) != f.bytes()) {
              throw new IllegalStateException("staged file " + p + " is missing or changed");
            }
          }
          faults.accept(Step.STAGED);
          layout.setDataDir(manifest, run.version);
          Path tmp = out.resolve(manifestFile + ".tmp-" + run.version);
          layout.write(manifest, tmp);
          faults.accept(Step.MANIFEST_WRITTEN);
          AtomicFiles.replace(tmp, manifestPath);
          faults.accept(Step.PUBLISHED);
          removeLeftovers(out, run.version);
        }
      }
      release(run);
      run.writer.close();
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot publish " + layout.kind() + " " + out, e);
    }
  }

  /**
   * Removes a failed run's version folder and lock; removes {@code out} too when this run created
   * it and nothing else is there. Never throws (the next run removes what is left).
   */
  public void abort(Run run) {
    try {
      FileTrees.deleteRecursively(run.dir());
      Files.deleteIfExists(run.out.resolve(manifestFile + ".tmp-" + run.version));
      release(run);
      if (run.createdOut
          && list(run.out).stream()
              .allMatch(p -> p.getFileName().toString().equals(PUBLISH_LOCK))) {
        Files.deleteIfExists(run.out.resolve(PUBLISH_LOCK));
        Files.delete(run.out);
      }
    } catch (IOException | RuntimeException e) {
      // the next run removes leftovers
    } finally {
      closeQuietly(run.lock);
      run.writer.close();
    }
  }

  private static void release(Run run) throws IOException {
    Path lockFile = run.out.resolve(WRITING_PREFIX + run.version + ".lock");
    try {
      Files.deleteIfExists(lockFile);
    } finally {
      run.lock.close();
    }
  }

  private M readOrNull(Path out) {
    try {
      return layout.read(out);
    } catch (InvalidInputException e) {
      return null;
    }
  }

  /**
   * Removes every entry of {@code out} that no live run and no published version needs: version
   * folders other than the current one and {@code keep} whose writer is dead, dead runs' temporary
   * manifests and lock files, staging folders and an earlier release's top-level entries.
   */
  private void removeLeftovers(Path out, String keep) {
    String current = null;
    if (Files.exists(out.resolve(manifestFile))) {
      M m = readOrNull(out);
      current = m == null ? null : layout.dataDir(m);
    }
    for (Path p : list(out)) {
      String name = p.getFileName().toString();
      try {
        if (isVersion(name)) {
          if (!name.equals(current) && !name.equals(keep)) {
            removeIfDead(out, name);
          }
        } else if (name.startsWith(WRITING_PREFIX)) {
          String v = lockedVersion(name);
          if (v == null || v.equals(keep)) {
            continue;
          }
          if (v.equals(current)) {
            if (!live(out, v)) { // its writer died after publishing
              Files.deleteIfExists(p);
            }
          } else if (!Files.exists(out.resolve(v))) {
            removeIfDead(out, v);
          }
        } else if (name.startsWith(manifestFile + ".tmp")) {
          String v = name.substring(Math.min(name.length(), (manifestFile + ".tmp-").length()));
          if (!isVersion(v) || !live(out, v)) {
            Files.deleteIfExists(p);
          }
        } else if (name.startsWith(LEGACY_STAGING_PREFIX)
            || (current != null && !current.isEmpty() && layout.owns(name))) {
          FileTrees.deleteRecursively(p);
          faults.accept(Step.OLD_REMOVED);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + p, e);
      }
    }
  }

  /** Removes version {@code v} and its lock file unless its writer still holds the lock. */
  private static void removeIfDead(Path out, String v) throws IOException {
    Path lockFile = out.resolve(WRITING_PREFIX + v + ".lock");
    if (!Files.exists(lockFile)) {
      FileTrees.deleteRecursively(out.resolve(v));
      faults.accept(Step.OLD_REMOVED);
      return;
    }
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      var held = ch.tryLock();
      if (held == null) {
        return; // another process is writing it
      }
      FileTrees.deleteRecursively(out.resolve(v));
      Files.deleteIfExists(lockFile);
      faults.accept(Step.OLD_REMOVED);
    } catch (java.nio.channels.OverlappingFileLockException e) {
      // this process is writing it
    } catch (java.nio.file.NoSuchFileException e) {
      // its writer just finished
    }
  }

  /** Whether a live run holds version {@code v}. */
  private static boolean live(Path out, String v) throws IOException {
    Path lockFile = out.resolve(WRITING_PREFIX + v + ".lock");
    if (!Files.exists(lockFile)) {
      return false;
    }
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      var held = ch.tryLock();
      return held == null;
    } catch (java.nio.channels.OverlappingFileLockException e) {
      return true;
    } catch (java.nio.file.NoSuchFileException e) {
      return false;
    }
  }

  private static String lockedVersion(String lockName) {
    if (!lockName.startsWith(WRITING_PREFIX) || !lockName.endsWith(".lock")) {
      return null;
    }
    String v = lockName.substring(WRITING_PREFIX.length(), lockName.length() - ".lock".length());
    return isVersion(v) ? v : null;
  }

  private boolean owned(String name) {
    return name.equals(manifestFile)
        || name.startsWith(manifestFile + ".tmp")
        || name.equals(PUBLISH_LOCK)
        || isVersion(name)
        || lockedVersion(name) != null
        || name.startsWith(LEGACY_STAGING_PREFIX)
        || layout.owns(name);
  }

  private void dropUnlisted(Path data, M manifest) throws IOException {
    Set<Path> listed = new HashSet<>();
    for (FileSize f : layout.files(manifest)) {
      listed.add(data.resolve(f.path()).normalize());
    }
    List<Path> stray = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(data)) {
      walk.filter(Files::isRegularFile)
          .filter(f -> !listed.contains(f.normalize()))
          .forEach(stray::add);
    }
    for (Path f : stray) {
      Files.delete(f);
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      // nothing to do
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
