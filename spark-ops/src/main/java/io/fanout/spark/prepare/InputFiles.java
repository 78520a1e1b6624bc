package io.fanout.spark.prepare;

import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * The files of one input path of {@code prepare}, listed and checked on the driver before Spark
 * reads any of them, so that a file Spark cannot read fails with one message naming it rather than
 * as a failed task.
 *
 * <p>As Spark does, names starting with '.' or '_' ({@code _SUCCESS}, {@code .part-0.crc}) are
 * skipped, and sub-folders are read only as partitions ({@code name=value}). Every other file must
 * be Parquet (start and end with the magic {@code PAR1}), or, with {@code --format csv}, must not
 * be. Only the first and last 4 bytes of each file are read.
 */
final class InputFiles {
  private static final byte[] MAGIC = {'P', 'A', 'R', '1'};

  /** Magic, 4-byte footer length, magic: no Parquet file is shorter. */
  private static final int MIN_PARQUET = 12;

  /** Names listed in a message before "and N more". */
  private static final int SHOWN = 5;

  /** Files whose ends are read at once (remote file systems answer each open slowly). */
  private static final int READERS = 16;

  private enum Kind {
    EMPTY,
    PARQUET,
    INCOMPLETE_PARQUET,
    OTHER
  }

  /** Path, size and mtime of every file under the path, sorted: the input's fingerprint. */
  final String digest;

  private InputFiles(String digest) {
    this.digest = digest;
  }

  /**
   * Lists and checks {@code path}.
   *
   * @param what "vertices" or "edges", as errors name the table and its option
   * @throws InvalidInputException naming the path (and the offending files in it) and what was
   *     expected
   */
  static InputFiles check(Configuration hadoop, String path, String what, boolean csv) {
    try {
      Path p = new Path(path);
      FileSystem fs = p.getFileSystem(hadoop);
      if (!fs.exists(p)) {
        throw new InvalidInputException(
            what + " path " + path + " does not exist; expected a Parquet or CSV file or folder");
      }
      FileStatus top = fs.getFileStatus(p);
      boolean folder = top.isDirectory();
      String root = top.getPath().toUri().getPath();
      List<String> lines = new ArrayList<>();
      List<FileStatus> data = new ArrayList<>();
      List<String> names = new ArrayList<>();
      TreeSet<String> folders = new TreeSet<>();
      TreeSet<String> skipped = new TreeSet<>();
      RemoteIterator<? extends FileStatus> it = fs.listFiles(p, true);
      while (it.hasNext()) {
        FileStatus s = it.next();
        lines.add(s.getPath() + "\t" + s.getLen() + "\t" + s.getModificationTime());
        String file = s.getPath().toUri().getPath();
        String rel = file.length() > root.length() ? file.substring(root.length() + 1) : "";
        String[] parts = rel.isEmpty() ? new String[0] : rel.split("/");
        int hidden = firstHidden(parts);
        if (hidden >= 0) {
          skipped.add(parts[hidden] + (hidden < parts.length - 1 ? "/" : ""));
        } else if (!partitionFolders(parts)) {
          folders.add(parts[0] + "/");
        } else {
          data.add(s);
          names.add(rel.isEmpty() ? path : rel);
        }
      }
      Collections.sort(lines);
      String label = what + (folder ? " folder " : " file ") + path;
      if (!folders.isEmpty()) {
        throw new InvalidInputException(foldersMessage(what, path, folders, csv));
      }
      if (data.isEmpty()) {
        throw new InvalidInputException(
            what
                + " folder "
                + path
                + " holds no "
                + (csv ? "CSV" : "Parquet")
                + " files"
                + (skipped.isEmpty() ? "" : " (skipped, as Spark does: " + shown(skipped) + ")")
                + "; expected a "
                + (csv ? "CSV" : "Parquet")
                + " file or a folder of them");
      }
      Kind[] kinds = kinds(fs, data);
      if (csv) {
        refuseParquetAsCsv(label, folder, names, kinds);
      } else {
        refuseNonParquet(label, folder, names, kinds);
      }
      return new InputFiles(String.join("\n", lines) + (lines.isEmpty() ? "" : "\n"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + path, e);
    }
  }

  /**
   * The index of the first name Spark skips ('.' or '_' first, or a copy in progress), or -1. A '_'
   * name with '=' is a partition folder, which Spark reads.
   */
  private static int firstHidden(String[] parts) {
    for (int i = 0; i < parts.length; i++) {
      String n = parts[i];
      if (n.startsWith(".")
          || (n.startsWith("_") && !n.contains("="))
          || n.endsWith("._COPYING_")) {
        return i;
      }
    }
    return -1;
  }

  /** True when every folder between the root and the file is a partition ({@code name=value}). */
  private static boolean partitionFolders(String[] parts) {
    for (int i = 0; i < parts.length - 1; i++) {
      if (!parts[i].contains("=")) {
        return false;
      }
    }
    return true;
  }

  private static String foldersMessage(
      String what, String path, TreeSet<String> folders, boolean csv) {
    String format = csv ? "CSV" : "Parquet";
    StringBuilder sb =
        new StringBuilder(what)
            .append(" folder ")
            .append(path)
            .append(" holds folders, not ")
            .append(format)
            .append(" files: ")
            .append(shown(folders))
            .append("; expected a ")
            .append(format)
            .append(" file or a folder of them (sub-folders only as name=value partitions)");
    List<String> hints = new ArrayList<>();
    for (String table : List.of("vertices", "edges")) {
      for (String f : List.of(table + (csv ? ".csv" : ".parquet") + "/", table + "/")) {
        if (folders.contains(f)) {
          hints.add("--" + table + " " + new Path(path, f.substring(0, f.length() - 1)));
          break;
        }
      }
    }
    if (!hints.isEmpty()) {
      sb.append(": pass ").append(String.join(" ", hints));
    }
    return sb.toString();
  }

  private static void refuseNonParquet(
      String label, boolean folder, List<String> names, Kind[] kinds) {
    List<String> empty = named(names, kinds, Kind.EMPTY);
    List<String> incomplete = named(names, kinds, Kind.INCOMPLETE_PARQUET);
    List<String> other = named(names, kinds, Kind.OTHER);
    boolean one = !folder;
    if (!empty.isEmpty()) {
      throw new InvalidInputException(
          label
              + (one ? " is empty (0 bytes)" : " holds empty files (0 bytes): " + shown(empty))
              + "; expected Parquet, which is never empty: write the table again or remove "
              + (one ? "the file" : "them"));
    }
    if (!incomplete.isEmpty()) {
      throw new InvalidInputException(
          label
              + (one
                  ? " is not a complete Parquet file"
                  : " holds incomplete Parquet files: " + shown(incomplete) + ";")
              + " (starts with PAR1 but does not end with it: truncated, or still being written);"
              + " write the table again");
    }
    if (other.isEmpty()) {
      return;
    }
    if (other.size() == kinds.length) {
      boolean csvNames = true;
      for (String n : other) {
        csvNames &= looksCsv(n);
      }
      String what;
      if (one) {
        what = csvNames ? " is CSV, not Parquet" : " is not Parquet (it does not start with PAR1)";
      } else {
        what =
            (csvNames
                    ? " holds CSV files, not Parquet: "
                    : " holds no Parquet files, only files without PAR1 at their start: ")
                + shown(other);
      }
      throw new InvalidInputException(
          label
              + what
              + "; "
              + (csvNames
                  ? "pass --format csv"
                  : "if " + (one ? "it is" : "they are") + " CSV, pass --format csv"));
    }
    throw new InvalidInputException(
        label
            + " holds files that are not Parquet: "
            + shown(other)
            + "; expected only Parquet files there (names starting with '.' or '_' are skipped, as"
            + " Spark does): move the others out");
  }

  private static void refuseParquetAsCsv(
      String label, boolean folder, List<String> names, Kind[] kinds) {
    List<String> parquet = named(names, kinds, Kind.PARQUET);
    parquet.addAll(named(names, kinds, Kind.INCOMPLETE_PARQUET));
    if (parquet.isEmpty()) {
      return;
    }
    throw new InvalidInputException(
        label
            + (!folder
                ? " is Parquet (it starts with PAR1), not CSV"
                : " holds Parquet files (they start with PAR1), not CSV: " + shown(parquet))
            + "; drop --format csv (Parquet is the default format)");
  }

  private static boolean looksCsv(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    for (String ext : List.of(".csv", ".tsv")) {
      if (n.endsWith(ext) || n.contains(ext + ".")) {
        return true;
      }
    }
    return false;
  }

  private static List<String> named(List<String> names, Kind[] kinds, Kind k) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < kinds.length; i++) {
      if (kinds[i] == k) {
        out.add(names.get(i));
      }
    }
    return out;
  }

  private static String shown(Iterable<String> names) {
    List<String> all = new ArrayList<>();
    names.forEach(all::add);
    Collections.sort(all);
    String head = String.join(", ", all.subList(0, Math.min(SHOWN, all.size())));
    return all.size() <= SHOWN ? head : head + " and " + (all.size() - SHOWN) + " more";
  }

  /** What each file is, from its first and last 4 bytes; several files are read at once. */
  private static Kind[] kinds(FileSystem fs, List<FileStatus> files) throws IOException {
    Kind[] out = new Kind[files.size()];
    if (files.size() == 1) {
      out[0] = kind(fs, files.get(0));
      return out;
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(READERS, files.size()),
            r -> {
              Thread t = new Thread(r, "fanout-input-check");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<Kind>> futures = new ArrayList<>();
      for (FileStatus f : files) {
        futures.add(pool.submit(() -> kind(fs, f)));
      }
      for (int i = 0; i < out.length; i++) {
        out[i] = futures.get(i).get();
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while checking input files", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  private static Kind kind(FileSystem fs, FileStatus f) throws IOException {
    long len = f.getLen();
    if (len == 0) {
      return Kind.EMPTY;
    }
    byte[] head = new byte[(int) Math.min(4, len)];
    byte[] tail = new byte[4];
    try (FSDataInputStream in = fs.open(f.getPath())) {
      in.readFully(0, head);
      if (!Arrays.equals(head, MAGIC)) {
        return Kind.OTHER;
      }
      if (len < MIN_PARQUET) {
        return Kind.INCOMPLETE_PARQUET;
      }
      in.readFully(len - 4, tail);
    }
    return Arrays.equals(tail, MAGIC) ? Kind.PARQUET : Kind.INCOMPLETE_PARQUET;
  }
}
