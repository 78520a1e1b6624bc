package io.fanout.bench.train;

import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings a benchmark's kept work folder was written with: one {@code key=value} line each,
 * written after the store and shards it describes (so a folder without it holds nothing complete),
 * and compared before a later run reuses them.
 */
final class BenchInputs {
  private BenchInputs() {}

  /**
   * Whether {@code file} records exactly {@code inputs}.
   *
   * @return false where there is no such file (nothing complete to reuse)
   * @throws InvalidInputException where it records other settings, naming the first that differs
   */
  static boolean matches(Path file, Map<String, String> inputs) {
    if (!Files.exists(file)) {
      return false;
    }
    Map<String, String> recorded = read(file);
    for (Map.Entry<String, String> e : inputs.entrySet()) {
      String was = recorded.get(e.getKey());
      if (!e.getValue().equals(was)) {
        throw new InvalidInputException(
            file.getParent()
                + " holds a store and shards written with "
                + e.getKey()
                + " "
                + (was == null ? "unset" : was)
                + ", not "
                + e.getValue()
                + " (see "
                + file.getFileName()
                + "); give another --work-dir or delete that one");
      }
    }
    if (!recorded.keySet().equals(inputs.keySet())) {
      throw new InvalidInputException(
          file + " records settings " + recorded.keySet() + ", expected " + inputs.keySet());
    }
    return true;
  }

  /** Writes {@code inputs} to {@code file}, replacing it atomically. */
  static void write(Path file, Map<String, String> inputs) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : inputs.entrySet()) {
      sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
    }
    Path tmp = file.resolveSibling("_" + file.getFileName());
    try {
      Files.writeString(tmp, sb.toString(), StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static Map<String, String> read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int eq = line.indexOf('=');
      if (eq <= 0) {
        throw new InvalidInputException(
            file + " line " + (i + 1) + ": expected key=value, got '" + line + "'");
      }
      m.put(line.substring(0, eq), line.substring(eq + 1));
    }
    return m;
  }
}
