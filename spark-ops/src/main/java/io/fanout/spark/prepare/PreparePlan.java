package io.fanout.spark.prepare;

import io.fanout.spark.internal.JsonLine;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code prepare} expects to need, before any work: partitions and their expected sizes, disk
 * for the store and for Spark's shuffle files, and the executor memory each stage needs. Built from
 * the inputs' row counts and the options ({@code prepare --dry-run}, {@link
 * io.fanout.spark.PrepareResult#plan()}); every figure is an estimate.
 */
public final class PreparePlan {
  /** One store partition: its expected vertices, edges and bytes on disk. */
  public record Partition(int partition, long vertices, long edges, long storeBytes) {}

  /**
   * One step of the run: the most one task holds in execution memory if nothing spills (Spark's
   * sorts and aggregations spill to the shuffle disk beyond their share), and what it is.
   */
  public record Stage(String step, long executorBytes, String holds) {}

  /** A file system the run writes to: what it needs there, what is free, and where. */
  public record Disk(String role, String path, long needBytes, long freeBytes) {
    public boolean fits() {
      return freeBytes < 0 || needBytes <= freeBytes;
    }
  }

  private final Map<String, Object> inputs;
  private final String partitioner;
  private final List<Partition> partitions;
  private final Map<String, Long> storeBytes;
  private final Map<String, Long> shuffleBytes;
  private final List<Stage> stages;
  private final List<Disk> disks;
  private final List<String> notes;

  public PreparePlan(
      Map<String, Object> inputs,
      String partitioner,
      List<Partition> partitions,
      Map<String, Long> storeBytes,
      Map<String, Long> shuffleBytes,
      List<Stage> stages,
      List<Disk> disks,
      List<String> notes) {
    this.inputs = new LinkedHashMap<>(inputs); // keeps the JSON's key order
    this.partitioner = partitioner;
    this.partitions = List.copyOf(partitions);
    this.storeBytes = new LinkedHashMap<>(storeBytes);
    this.shuffleBytes = new LinkedHashMap<>(shuffleBytes);
    this.stages = List.copyOf(stages);
    this.disks = List.copyOf(disks);
    this.notes = List.copyOf(notes);
  }

  /** Expected rows of each store partition. */
  public List<Partition> partitions() {
    return partitions;
  }

  /** Expected bytes of the store's files (the total of {@link #storeBytesByKind()}). */
  public long storeBytes() {
    return sum(storeBytes);
  }

  /** Expected store bytes by kind of file: csr, features, nodes, weights, idmap. */
  public Map<String, Long> storeBytesByKind() {
    return java.util.Collections.unmodifiableMap(storeBytes);
  }

  /** Expected bytes Spark's tasks write to shuffle files (the total of the steps'). */
  public long shuffleBytes() {
    return sum(shuffleBytes);
  }

  /** Expected shuffle bytes by step. */
  public Map<String, Long> shuffleBytesByStep() {
    return java.util.Collections.unmodifiableMap(shuffleBytes);
  }

  public List<Stage> stages() {
    return stages;
  }

  /** The file systems the run writes to, with their needs and free bytes (-1: not probed). */
  public List<Disk> disks() {
    return disks;
  }

  /** True when every probed file system has room for what the run writes there. */
  public boolean fits() {
    for (Disk d : disks) {
      if (!d.fits()) {
        return false;
      }
    }
    return true;
  }

  /** The plan as the one JSON line {@code bin/fanout prepare --dry-run} prints. */
  public String toJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("dry_run", true);
    out.put("inputs", new LinkedHashMap<>(inputs));
    out.put("partitioner", partitioner);
    out.put("partitions", partitions.size());
    List<Map<String, Object>> parts = new ArrayList<>();
    for (Partition p : partitions) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("partition", p.partition());
      m.put("vertices", p.vertices());
      m.put("edges", p.edges());
      m.put("store_bytes", p.storeBytes());
      parts.add(m);
    }
    out.put("partition_table", parts);
    out.put("store_bytes", storeBytes());
    out.put("store_bytes_by_kind", storeBytes);
    out.put("shuffle_bytes", shuffleBytes());
    out.put("shuffle_bytes_by_step", shuffleBytes);
    List<Map<String, Object>> st = new ArrayList<>();
    for (Stage s : stages) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("step", s.step());
      m.put("executor_bytes", s.executorBytes());
      m.put("holds", s.holds());
      st.add(m);
    }
    out.put("stages", st);
    List<Map<String, Object>> ds = new ArrayList<>();
    for (Disk d : disks) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("role", d.role());
      m.put("path", d.path());
      m.put("need_bytes", d.needBytes());
      m.put("free_bytes", d.freeBytes());
      m.put("fits", d.fits());
      ds.add(m);
    }
    out.put("disks", ds);
    out.put("notes", notes);
    return JsonLine.of(out);
  }

  /** The plan for a reader, several lines. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    if (inputs.containsKey("types")) {
      describeTyped(sb);
    } else {
      sb.append(
          String.format(
              Locale.ROOT,
              "prepare plan (from %s): %,d vertex rows, %,d edge rows, %s features%n",
              inputs.get("source"),
              (Long) inputs.get("vertices"),
              (Long) inputs.get("edges"),
              inputs.get("feature_dim")));
    }
    long maxV = 0;
    long maxE = 0;
    long maxB = 0;
    for (Partition p : partitions) {
      maxV = Math.max(maxV, p.vertices());
      maxE = Math.max(maxE, p.edges());
      maxB = Math.max(maxB, p.storeBytes());
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "  %d partition(s) by %s, the largest about %,d vertices, %,d edges, %s%n",
            partitions.size(),
            partitioner,
            maxV,
            maxE,
            size(maxB)));
    sb.append(
        String.format(Locale.ROOT, "  store:   %s %s%n", size(storeBytes()), sizes(storeBytes)));
    sb.append(
        String.format(
            Locale.ROOT, "  shuffle: %s %s%n", size(shuffleBytes()), sizes(shuffleBytes)));
    for (Stage s : stages) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  memory:  %-50s %10s per task (%s)%n",
              s.step(),
              size(s.executorBytes()),
              s.holds()));
    }
    for (Disk d : disks) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  disk:    %-7s %s needs %s, %s%n",
              d.role(),
              d.path(),
              size(d.needBytes()),
              d.freeBytes() < 0
                  ? "free space not checked"
                  : size(d.freeBytes()) + " free" + (d.fits() ? "" : ": NOT ENOUGH")));
    }
    for (String n : notes) {
      sb.append("  note:    ").append(n).append('\n');
    }
    return sb.toString();
  }

  /** The header of a typed graph's plan: its totals, then a line per type and per relation. */
  @SuppressWarnings("unchecked")
  private void describeTyped(StringBuilder sb) {
    List<Map<String, Object>> types = (List<Map<String, Object>>) inputs.get("types");
    List<Map<String, Object>> relations = (List<Map<String, Object>>) inputs.get("relations");
    sb.append(
        String.format(
            Locale.ROOT,
            "prepare plan (from %s): typed graph, %d vertex types with %,d vertex rows, %d"
                + " relations with %,d edges (%,d edge rows given)%n",
            inputs.get("source"),
            types.size(),
            (Long) inputs.get("vertices"),
            relations.size(),
            (Long) inputs.get("store_edges"),
            (Long) inputs.get("edges")));
    for (Map<String, Object> t : types) {
      int dim = (Integer) t.get("feature_dim");
      sb.append(
          String.format(
              Locale.ROOT,
              "  type     %-20s %,d vertices, %s, %d partition(s)%n",
              t.get("type"),
              (Long) t.get("vertices"),
              dim == 0 ? "no features" : dim + " features in " + t.get("encoding"),
              (Integer) t.get("partitions")));
    }
    for (Map<String, Object> r : relations) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  relation %-20s %s -> %s, %,d edges%s%s%s%n",
              r.get("relation"),
              r.get("src_type"),
              r.get("dst_type"),
              (Long) r.get("edges"),
              Boolean.TRUE.equals(r.get("symmetric")) ? ", both ways round (--undirected)" : "",
              Boolean.TRUE.equals(r.get("weighted")) ? ", weighted" : "",
              Boolean.TRUE.equals(r.get("added_reverse")) ? " (added reverse)" : ""));
    }
  }

  @Override
  public String toString() {
    return toJson();
  }

  /** Bytes as a reader wants them: {@code 3.42 MB}. */
  public static String size(long bytes) {
    if (bytes < 1000) {
      return bytes + " B";
    }
    String[] units = {"kB", "MB", "GB", "TB", "PB"};
    double v = bytes;
    int u = -1;
    while (v >= 1000 && u < units.length - 1) {
      v /= 1000;
      u++;
    }
    return String.format(Locale.ROOT, "%.2f %s", v, units[u]);
  }

  private static String sizes(Map<String, Long> parts) {
    StringBuilder sb = new StringBuilder("(");
    for (Map.Entry<String, Long> e : parts.entrySet()) {
      if (sb.length() > 1) {
        sb.append(", ");
      }
      sb.append(e.getKey()).append(' ').append(size(e.getValue()));
    }
    return sb.append(')').toString();
  }

  private static long sum(Map<String, Long> m) {
    long s = 0;
    for (long v : m.values()) {
      s += v;
    }
    return s;
  }
}
