package io.fanout.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the early-stopping tests read of a model dir: its {@code metrics.jsonl}, where a run of a
 * patience stops by those lines, and its files' bytes.
 */
public final class EarlyStopChecks {
  private EarlyStopChecks() {}

  /** The lines of {@code dir}'s {@code metrics.jsonl}, parsed. */
  public static List<JsonNode> read(Path dir) {
    List<JsonNode> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(dir.resolve(ModelDirFiles.METRICS))) {
        out.add(new ObjectMapper().readTree(line));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * The line indexes of the best {@code key} score and of the first line after which {@code
   * patience} lines brought no better one (-1: none), computed from the lines alone: where a run of
   * that patience stops.
   */
  public static int[] bestAndStop(List<JsonNode> lines, String key, int patience) {
    int best = -1;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int e = 0; e < lines.size(); e++) {
      double a = lines.get(e).get(key).asDouble();
      if (a > bestScore) {
        bestScore = a;
        best = e;
      }
      if (e - best >= patience) {
        return new int[] {best, e};
      }
    }
    return new int[] {best, -1};
  }

  /** Every file of {@code dir} by name, with its bytes. */
  public static java.util.Map<String, byte[]> files(Path dir) {
    java.util.Map<String, byte[]> out = new java.util.TreeMap<>();
    try (var all = Files.list(dir)) {
      for (Path f : (Iterable<Path>) all::iterator) {
        out.put(f.getFileName().toString(), Files.readAllBytes(f));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
