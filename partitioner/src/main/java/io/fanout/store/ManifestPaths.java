package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The rule every file path in a manifest (store, shards) obeys: relative, already normalized
 * ({@code csr/part-00000.csr}, never {@code /etc/passwd}, {@code ../x}, {@code ./x} or {@code
 * a//b}), and resolving inside the manifest's folder, also when a component on the way is a
 * symbolic link. A path that breaks it is refused as "outside the store" (or shard directory),
 * before anything is read through it.
 */
public final class ManifestPaths {
  private ManifestPaths() {}

  /**
   * Checks the form of {@code path}, as listed in the manifest {@code source}.
   *
   * @param folder what the manifest describes, for the message: "store", "shard directory"
   * @throws InvalidInputException when {@code path} is absolute, not normalized, or leaves its
   *     folder
   */
  public static void check(String source, String folder, String path) {
    String why = formProblem(path);
    if (why != null) {
      throw outside(source, folder, path, why);
    }
  }

  /**
   * {@code root.resolve(path)} after {@link #check}, and after making sure that no symbolic link on
   * the way leads out of {@code root}. A path whose file does not exist resolves (the caller
   * reports it as missing).
   */
  public static Path resolve(Path root, String source, String folder, String path) {
    check(source, folder, path);
    Path resolved = root.resolve(path);
    Path existing = resolved;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null || !Files.exists(existing)) {
      return resolved; // missing, or a dangling link: reported as missing by the reader
    }
    try {
      Path realRoot = root.toRealPath();
      if (!existing.toRealPath().startsWith(realRoot)) {
        throw outside(
            source, folder, path, "a symbolic link on the way leads to " + existing.toRealPath());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve " + resolved, e);
    }
    return resolved;
  }

  /**
   * Checks a manifest's {@code data_dir}: empty (an output of an earlier release) or a version
   * folder name, {@code v-NNNN}.
   */
  public static void checkDataDir(String source, String folder, String dataDir) {
    if (!dataDir.isEmpty() && !OutputCommit.isVersion(dataDir)) {
      throw outside(source, folder, dataDir, "data_dir must be a version folder v-NNNN");
    }
  }

  /**
   * The folder a manifest's files are relative to: {@code root} itself for an empty {@code
   * dataDir}, else the version folder {@code root/dataDir} after {@link #checkDataDir} and the
   * symbolic-link check of {@link #resolve}.
   */
  public static Path dataRoot(Path root, String source, String folder, String dataDir) {
    checkDataDir(source, folder, dataDir);
    if (dataDir.isEmpty()) {
      return root;
    }
    Path data = resolve(root, source, folder, dataDir);
    if (!Files.isDirectory(data)) {
      throw new InvalidInputException(
          source
              + " names the version folder data_dir '"
              + dataDir
              + "', which is missing from "
              + root
              + ": the "
              + folder
              + " is damaged (its current version was removed), write the "
              + folder
              + " again");
    }
    return data;
  }

  private static String formProblem(String path) {
    if (path == null || path.isEmpty()) {
      return "it is empty";
    }
    if (path.startsWith("/") || path.contains("\\")) {
      return "it is absolute";
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        return "it is not a normalized relative path (segment '" + segment + "')";
      }
    }
    return null;
  }

  private static InvalidInputException outside(
      String source, String folder, String path, String why) {
    return new InvalidInputException(
        source
            + " lists the file '"
            + path
            + "', which is outside the "
            + folder
            + " ("
            + why
            + "); expected a relative path inside the "
            + folder
            + ": the manifest was edited or damaged, write the "
            + folder
            + " again");
  }
}
