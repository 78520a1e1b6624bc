package io.fanout.spark.ml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import org.apache.spark.sql.SparkSession;

/**
 * The folders the Spark ML classes work in: a fresh one per fit or loaded model, local paths of the
 * ML save paths, and copies of stores and model directories.
 */
final class WorkDirs {
  private WorkDirs() {}

  /**
   * A new, empty folder under the first of {@code spark.local.dir}, else under {@code
   * java.io.tmpdir}. It is left in place: stores and predictions that DataFrames read live in it.
   */
  static Path fresh(SparkSession spark, String prefix) {
    String dirs = spark.sparkContext().getConf().get("spark.local.dir", "");
    String first = dirs.split(",")[0].trim();
    Path base = Path.of(first.isEmpty() ? System.getProperty("java.io.tmpdir") : first);
    try {
      Files.createDirectories(base);
      return Files.createTempDirectory(base, prefix).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a work folder under " + base, e);
    }
  }

  /** A new, empty folder in {@code parent}. */
  static Path freshUnder(Path parent, String prefix) {
    try {
      return Files.createTempDirectory(parent, prefix).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a folder under " + parent, e);
    }
  }

  /** The folder {@code dir}, created when missing. */
  static Path given(String dir) {
    Path p = Path.of(dir).toAbsolutePath().normalize();
    try {
      Files.createDirectories(p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the work folder " + p, e);
    }
    return p;
  }

  /**
   * The local path of an ML save path: no scheme or {@code file:}. Stores are memory-mapped, so a
   * saved model lives on a file system every reader mounts.
   *
   * @throws IllegalArgumentException for another scheme
   */
  static Path local(String path) {
    URI uri = URI.create(path.replace(" ", "%20"));
    if (uri.getScheme() == null) {
      return Path.of(path).toAbsolutePath().normalize();
    }
    if (uri.getScheme().equals("file")) {
      return Path.of(uri).toAbsolutePath().normalize();
    }
    throw new IllegalArgumentException(
        "a GnnClassificationModel is saved to and loaded from a local or mounted file system (no"
            + " scheme, or file:), since its graph store is memory-mapped; got "
            + path);
  }

  /** Copies the folder {@code from} with everything in it to {@code to}, which must not exist. */
  static void copyTree(Path from, Path to) {
    try {
      Files.walkFileTree(
          from,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
                throws IOException {
              Files.createDirectories(to.resolve(from.relativize(dir).toString()));
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.copy(
                  file,
                  to.resolve(from.relativize(file).toString()),
                  StandardCopyOption.COPY_ATTRIBUTES);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
    }
  }
}
