package io.fanout.bench.store;

import io.fanout.store.InvalidInputException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Runs the METIS command-line partitioner {@code gpmetis} on an in-memory graph. */
final class GpMetis {
  private GpMetis() {}

  /** Whether {@code gpmetis} is on the PATH. */
  static boolean installed() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "gpmetis"))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Writes the symmetric graph ({@code adj[xadj[v] .. xadj[v+1])} are the neighbors of {@code v},
   * each undirected edge listed at both ends, no self loops) in METIS format.
   */
  static void write(Path file, int[] xadj, int[] adj) throws IOException {
    int n = xadj.length - 1;
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
      w.write(n + " " + adj.length / 2 + "\n");
      StringBuilder line = new StringBuilder();
      for (int v = 0; v < n; v++) {
        line.setLength(0);
        for (int e = xadj[v]; e < xadj[v + 1]; e++) {
          if (e > xadj[v]) {
            line.append(' ');
          }
          line.append(adj[e] + 1);
        }
        line.append('\n');
        w.write(line.toString());
      }
    }
  }

  /** Runs {@code gpmetis -ufactor=50 FILE k} and returns the part of every vertex. */
  static int[] partition(Path file, int n, int k) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("gpmetis", "-ufactor=50", file.toString(), Integer.toString(k))
            .redirectErrorStream(true)
            .start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new InvalidInputException("gpmetis failed on " + file + ": " + log.strip());
    }
    Path out = Path.of(file + ".part." + k);
    List<String> lines = Files.readAllLines(out);
    Files.delete(out);
    if (lines.size() != n) {
      throw new InvalidInputException(
          out + ": gpmetis wrote " + lines.size() + " parts, expected one per vertex (" + n + ")");
    }
    int[] part = new int[n];
    for (int i = 0; i < n; i++) {
      part[i] = Integer.parseInt(lines.get(i).trim());
    }
    return part;
  }
}
