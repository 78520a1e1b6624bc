package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConfigException;
import io.fanout.spark.internal.Hooks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * The disks a {@code prepare} run writes to, what it needs on each and what is free: the output's
 * file system (the store, plus the f32 feature files an encoding rewrites), and, in local mode, the
 * file system of {@code spark.local.dir} (Spark's shuffle files; on a cluster they are on the
 * executors' disks, which the driver cannot see, so they are reported unchecked). When both are one
 * file system, one entry needs the sum.
 */
final class SpaceCheck {
  private SpaceCheck() {}

  static List<PreparePlan.Disk> disks(
      SparkSession spark, Path output, long storeBytes, long shuffleBytes) {
    FreeSpaceProbe probe = probe(spark);
    Path out = existingAncestor(output);
    List<PreparePlan.Disk> disks = new ArrayList<>();
    boolean local = spark.sparkContext().isLocal();
    String localDirs =
        spark.sparkContext().getConf().get("spark.local.dir", System.getProperty("java.io.tmpdir"));
    Path shuffle = existingAncestor(Paths.get(localDirs.split(",")[0].trim()).toAbsolutePath());
    if (local && sameStore(out, shuffle)) {
      disks.add(
          new PreparePlan.Disk(
              "output and shuffle", out.toString(), storeBytes + shuffleBytes, free(probe, out)));
      return disks;
    }
    disks.add(new PreparePlan.Disk("output", out.toString(), storeBytes, free(probe, out)));
    disks.add(
        new PreparePlan.Disk(
            "shuffle", shuffle.toString(), shuffleBytes, local ? free(probe, shuffle) : -1));
    return disks;
  }

  /**
   * Refuses to start when a disk lacks room.
   *
   * @throws FanoutConfigException naming the path, the bytes needed and the bytes free
   */
  static void require(PreparePlan plan) {
    for (PreparePlan.Disk d : plan.disks()) {
      if (!d.fits()) {
        throw new FanoutConfigException(
            "prepare: not enough free disk space for the "
                + d.role()
                + " at "
                + d.path()
                + ": the plan needs about "
                + PreparePlan.size(d.needBytes())
                + " ("
                + d.needBytes()
                + " bytes), "
                + PreparePlan.size(d.freeBytes())
                + " ("
                + d.freeBytes()
                + " bytes) free; free some space, write elsewhere, or pass --skip-space-check"
                + " (prepare --dry-run shows the plan)");
      }
    }
  }

  private static FreeSpaceProbe probe(SparkSession spark) {
    String name = spark.conf().get(Hooks.FREE_SPACE_PROBE, null);
    if (name == null || name.isBlank()) {
      return new FreeSpaceProbe.FileStoreProbe();
    }
    return Hooks.instantiate(Hooks.FREE_SPACE_PROBE, name.trim(), FreeSpaceProbe.class);
  }

  private static long free(FreeSpaceProbe probe, Path dir) {
    try {
      return probe.usableBytes(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("reading the free space of " + dir, e);
    }
  }

  private static boolean sameStore(Path a, Path b) {
    try {
      FileStore fa = Files.getFileStore(a);
      FileStore fb = Files.getFileStore(b);
      return fa.equals(fb);
    } catch (IOException e) {
      return false;
    }
  }

  /** {@code p} or its nearest ancestor that exists. */
  static Path existingAncestor(Path p) {
    Path q = p.toAbsolutePath();
    while (q != null && !Files.isDirectory(q)) {
      q = q.getParent();
    }
    return q == null ? p.toAbsolutePath().getRoot() : q;
  }
}
